import { ApiVersion, LogSeverity, shopifyApi } from "@shopify/shopify-api";
import "./shop-origins.ts";

export interface ProxiedRequest {
  /** The store the request came through (`shop`), lower case. */
  shop: string;
  /** The signed-in customer's numeric id (`logged_in_customer_id`), or null. */
  customerId: string | null;
}

/**
 * The app proxy's signature, checked by Shopify's library (`utils.validateHmac`, signator
 * `appProxy`): every parameter but `signature` sorted, HMAC-SHA256 under the app's secret, and the
 * `timestamp` within the library's 90 s of the process clock; `shop`, `signature` and `timestamp`
 * given once. Only the secret matters to that check: the instance knows no app URL or client id.
 */
export function appProxyVerifier(secret: string): (rawQuery: string) => Promise<ProxiedRequest | undefined> {
  const shopify = shopifyApi({
    apiSecretKey: secret,
    // Not read by validateHmac; the library wants them set.
    apiKey: "app-proxy",
    hostName: "app-proxy.invalid",
    apiVersion: ApiVersion.July26,
    isEmbeddedApp: false,
    logger: { level: LogSeverity.Error, log: () => undefined },
  });
  return async (rawQuery) => {
    const query = new URLSearchParams(rawQuery);
    let valid: boolean;
    try {
      valid = await shopify.utils.validateHmac(query, { signator: "appProxy" });
    } catch {
      // Missing or repeated signature, shop or timestamp, or a timestamp out of range.
      return undefined;
    }
    const shop = query.get("shop");
    if (!valid || !shop) return undefined;
    const customer = query.get("logged_in_customer_id");
    return { shop: shop.toLowerCase(), customerId: customer && /^\d+$/.test(customer) ? customer : null };
  };
}
