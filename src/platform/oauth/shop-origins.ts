import "@shopify/shopify-api/adapters/node";
import { abstractFetch, setAbstractFetchFunc } from "@shopify/shopify-api/runtime";

/**
 * Where a shop's admin answers. A real store answers at `https://<shop>` and needs nothing here:
 * the map is empty unless the embedded default (src/runtime/demo.ts) or a test routes its emulator's
 * shop domain to the emulator's loopback origin. The library builds `https://<shop>/admin/oauth/...`
 * itself; its fetch (the runtime's abstract fetch, process-wide as the library keeps it) goes
 * through here, so the OAuth code path is the same for the emulator and for a real store.
 * Decision 0219.
 */
const routed = new Map<string, string>();

/** Sends the shop's admin requests to `origin` (`http://127.0.0.1:PORT`) instead of `https://<shop>`. */
export function routeShopToOrigin(shopDomain: string, origin: string): void {
  routed.set(shopDomain.toLowerCase(), origin.replace(/\/+$/, ""));
}

export function unrouteShop(shopDomain: string): void {
  routed.delete(shopDomain.toLowerCase());
}

/** The shop's admin origin: its routed origin, else `https://<shop>`. */
export function adminOrigin(shopDomain: string): string {
  return routed.get(shopDomain.toLowerCase()) ?? `https://${shopDomain}`;
}

/** A URL on `https://<routed shop>` moved to the routed origin; any other URL as it is. */
export function routedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const origin = parsed.protocol === "https:" ? routed.get(parsed.hostname.toLowerCase()) : undefined;
  return origin ? `${origin}${parsed.pathname}${parsed.search}` : url;
}

const libraryFetch = abstractFetch;
setAbstractFetchFunc((input: Parameters<typeof fetch>[0], init?: RequestInit) => libraryFetch(typeof input === "string" ? routedUrl(input) : input, init));
