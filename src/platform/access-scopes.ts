/**
 * The Admin API access scopes the app asks a store for: the one list the OAuth install requests
 * (src/platform/oauth/app.ts), the emulator grants by default (emulator/app-installation.ts) and
 * shopify.app.toml's `[access_scopes] scopes` repeats (test/shopify-app-toml.test.ts checks they
 * agree). Without read_translations: product translations are an option the merchant turns on by
 * granting it (src/account/actions/languages.ts).
 */
export const APP_ACCESS_SCOPES: readonly string[] = Object.freeze([
  "read_products",
  "write_products",
  "read_inventory",
  "read_orders",
  "write_orders",
  "read_customers",
  "write_customers",
  "read_purchase_options",
  "write_purchase_options",
  "read_markets",
  "read_locations",
  "read_merchant_managed_fulfillment_orders",
  "write_merchant_managed_fulfillment_orders",
]);
