import { describe, expect, it } from "vitest";
import { signProxyQuery } from "../src/platform/emulator/storefront/signature.ts";
import { appProxyVerifier } from "../src/platform/oauth/app-proxy.ts";

/**
 * The app proxy's signature is checked by Shopify's library (utils.validateHmac, signator
 * appProxy), against queries signed as the platform signs them (the emulator's signer).
 */
const SECRET = "app-proxy-secret-0123456789abcdef";
const verify = appProxyVerifier(SECRET);

function signed(params: [string, string][], secret = SECRET, at = Date.now()): URLSearchParams {
  const query = new URLSearchParams([...params, ["timestamp", String(Math.floor(at / 1000))]]);
  query.set("signature", signProxyQuery(secret, query));
  return query;
}

const base: [string, string][] = [
  ["shop", "Proxy-Store.myshopify.com"],
  ["logged_in_customer_id", "4242"],
  ["path_prefix", "/apps/preorder"],
];

describe("app proxy signature (Shopify's library)", () => {
  it("accepts the platform's signature, a repeated parameter's values joined, and answers the shop and customer", async () => {
    expect(await verify(signed(base).toString())).toEqual({ shop: "proxy-store.myshopify.com", customerId: "4242" });
    expect(await verify(signed([...base, ["ids", "1"], ["ids", "2"]]).toString())).toEqual({ shop: "proxy-store.myshopify.com", customerId: "4242" });
    expect(await verify(signed([["shop", "proxy-store.myshopify.com"], ["logged_in_customer_id", ""], ["path_prefix", "/apps/preorder"]]).toString())).toEqual({
      shop: "proxy-store.myshopify.com",
      customerId: null,
    });
  });

  it("refuses no signature, another secret, a changed parameter, a stale timestamp and a repeated shop", async () => {
    const good = signed(base);
    const unsigned = new URLSearchParams(good);
    unsigned.delete("signature");
    expect(await verify(unsigned.toString())).toBeUndefined();
    expect(await verify(signed(base, "another-secret-0123456789abcdef").toString())).toBeUndefined();
    const changed = new URLSearchParams(good);
    changed.set("logged_in_customer_id", "1");
    expect(await verify(changed.toString())).toBeUndefined();
    expect(await verify(signed(base, SECRET, Date.now() - 10 * 60_000).toString())).toBeUndefined();
    expect(await verify(signed([...base, ["shop", "other-store.myshopify.com"]]).toString())).toBeUndefined();
  });
});
