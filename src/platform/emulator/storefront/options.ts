/** The online store's settings: the app's theme app embed and its app proxy. */
export interface StorefrontOptions {
  /**
   * The script the app's theme app embed block loads on every storefront page (the service's
   * `GET /storefront/widget.js`); unset: pages load no app script.
   */
  appEmbedUrl?: string;
  /**
   * The app's app proxy: `/apps/<subpath>/*` on the store is forwarded to `<url>/*` with the
   * platform's signed query (signed with `secret`, the app's API secret). Unset: `/apps/*` is 404.
   */
  appProxy?: { url: string; secret: string; subpath?: string };
}

export const DEFAULT_PROXY_SUBPATH = "preorder";
