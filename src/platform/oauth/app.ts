import { ApiVersion, LogSeverity, type Shopify, shopifyApi } from "@shopify/shopify-api";
import type { Log } from "../../logger.ts";
import { APP_ACCESS_SCOPES } from "../access-scopes.ts";
import { ADMIN_API_VERSION } from "../api-version.ts";
// Loads the Node adapter and routes the library's fetch (shop-origins.ts) before any call.
import "./shop-origins.ts";

export interface AppCredentials {
  /** The app's client id (SHOPIFY_API_KEY). */
  apiKey: string;
  /** The app's client secret (PLATFORM_API_SECRET): OAuth, session tokens and the app proxy's signature. */
  apiSecret: string;
  /** Where the service is reached (APP_URL): the OAuth redirect_uri's origin. */
  appUrl: string;
}

/** The installation path's callback (shopify.app.toml's `[auth] redirect_urls` lists `<APP_URL><this>`). */
export const OAUTH_CALLBACK_PATH = "/auth/callback";

// The library's ApiVersion enum is a string enum of the published versions: the pinned one is among them.
function pinnedApiVersion(): ApiVersion {
  const known = Object.values(ApiVersion).find((v: string) => v === ADMIN_API_VERSION);
  if (known === undefined) throw new Error(`@shopify/shopify-api does not know Admin API version ${ADMIN_API_VERSION}`);
  return known;
}
const API_VERSION = pinnedApiVersion();

/**
 * Shopify's own library (@shopify/shopify-api), for what it does: the OAuth install, session tokens
 * and token exchange, the app proxy's signature. The Admin GraphQL calls stay on the service's own
 * client (src/platform/client.ts, decision 0221). Its log lines (shop domains, never a token) go to
 * the service's log; its Info lines at debug.
 */
export function createShopifyApp(credentials: AppCredentials, log: Log): Shopify {
  const url = new URL(credentials.appUrl);
  return shopifyApi({
    apiKey: credentials.apiKey,
    apiSecretKey: credentials.apiSecret,
    scopes: [...APP_ACCESS_SCOPES],
    hostName: url.host,
    hostScheme: url.protocol === "http:" ? "http" : "https",
    apiVersion: API_VERSION,
    // Only decides whether the callback also sets the library's session cookie: the service keeps
    // no library sessions (the token goes to the shop row), so none.
    isEmbeddedApp: true,
    logger: {
      level: LogSeverity.Warning,
      log: (severity, message) => {
        if (severity === LogSeverity.Error) log.error({ component: "shopify-api" }, message);
        else if (severity === LogSeverity.Warning) log.warn({ component: "shopify-api" }, message);
        else log.debug({ component: "shopify-api" }, message);
      },
    },
  });
}
