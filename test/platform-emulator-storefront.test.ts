import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appProxySignature } from "../src/http/storefront.ts";
import { type Emulator, startEmulator } from "../src/platform/emulator/index.ts";
import { SHOP_ID } from "../src/platform/emulator/ids.ts";
import { emulatorOptionsFromEnv } from "../src/platform/emulator/main-config.ts";
import type { Variant } from "../src/platform/emulator/model.ts";
import { storePlanFor } from "./helpers/emulator-plan.ts";

/**
 * The emulator's online store without a browser: the app embed's data in the product page, the
 * cart API, the checkout's validation from the app's metafields and its order, and the app proxy's
 * signed forwarding (checked with the service's own verification).
 */
const SECRET = "storefront-proxy-secret-0123456789";
let emulator: Emulator;
let app: Server;
let appOrigin: string;
const forwarded: { method: string; url: string; body: string; headers: Record<string, string | string[] | undefined> }[] = [];
let variants: Variant[];
let planId: number;

function planFor(variant: Variant): number {
  return storePlanFor(emulator.store, variant);
}

function putOffer(variant: Variant, offer: Record<string, unknown>): void {
  emulator.store.putMetafield({ ownerType: "PRODUCTVARIANT", ownerId: variant.id, namespace: `app--${emulator.appId}--preorder`, key: "offer-1", type: "json", value: JSON.stringify(offer) });
}

function stock(variant: Variant, available: number): void {
  variant.inventoryPolicy = "DENY";
  variant.tracked = true;
  emulator.store.activeLocations().forEach((location, n) => emulator.store.setAvailable(emulator.store.variantIndex(variant), location, n === 0 ? available : 0));
}

/** A shopper: keeps the store's cookies across requests. */
function shopper() {
  let cookie = "";
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${emulator.origin}${path}`, {
      method,
      headers: { ...(cookie ? { cookie } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }), accept: "application/json", ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      redirect: "manual",
    });
    for (const set of response.headers.getSetCookie()) {
      const [pair] = set.split(";");
      const [name] = (pair ?? "").split("=");
      cookie = [...cookie.split("; ").filter((c) => c !== "" && !c.startsWith(`${name}=`)), pair].join("; ");
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, json: json as Record<string, unknown> & { errors?: { localizedMessage: string }[]; items?: Record<string, unknown>[] }, text };
  };
}

beforeAll(async () => {
  app = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      forwarded.push({ method: request.method ?? "", url: request.url ?? "", body: Buffer.concat(chunks).toString(), headers: request.headers });
      response.writeHead(202, { "content-type": "application/json" }).end(JSON.stringify({ status: "waiting" }));
    });
  });
  await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
  appOrigin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  emulator = await startEmulator({
    seed: { products: 6, variantsPerProduct: 2, locations: 1, markets: 2, collections: 2 },
    storefront: { appEmbedUrl: "https://app.example/storefront/widget.js", appProxy: { url: `${appOrigin}/storefront`, secret: SECRET } },
  });
  variants = emulator.store.variants.slice();
  for (const v of variants) stock(v, 20);
  planId = planFor(variants[0] as Variant);
});
afterAll(async () => {
  await emulator?.close();
  await new Promise((resolve) => app?.close(resolve));
});

describe("the emulator's online store", () => {
  it("renders the product page with the app embed: the variant's offer metafields and the shop metafield as JSON, the widget's script", async () => {
    const variant = variants[0] as Variant;
    putOffer(variant, { version: 1, offer_id: "1", selling_plan_id: `gid://shopify/SellingPlan/${planId}` });
    emulator.store.putMetafield({ ownerType: "SHOP", ownerId: SHOP_ID, namespace: `app--${emulator.appId}--preorder`, key: "shop", type: "json", value: JSON.stringify({ version: 1, note: "</script><b>", live_offer_ids: ["1"] }) });
    const handle = emulator.store.productOf(variant).handle;
    const page = await shopper()("GET", `/fr/products/${handle}?variant=${variant.id}&country=FR`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<script src="https://app.example/storefront/widget.js" defer></script>');
    expect(page.text).toContain('<input type="hidden" name="selling_plan" value="">');
    const embed = JSON.parse(/id="preorder-app-embed">(.*?)<\/script>/s.exec(page.text)?.[1] ?? "null") as { shop: unknown; locale: string; market_id: string; proxy_path: string };
    // A value holding </script> cannot end the tag: < is escaped.
    expect(page.text).not.toContain("</script><b>");
    expect(embed).toMatchObject({ shop: { version: 1, note: "</script><b>" }, locale: "fr", proxy_path: "/apps/preorder" });
    const europe = emulator.store.markets.find((m) => m.countryCodes.includes("FR"));
    expect(embed.market_id).toBe(`gid://shopify/Market/${europe?.id}`);
    const product = JSON.parse(/data-preorder-product>(.*?)<\/script>/s.exec(page.text)?.[1] ?? "null") as { variants: { id: number; available: boolean; offers: Record<string, unknown> }[] };
    expect(product.variants[0]).toMatchObject({ id: variant.id, available: true, offers: { "offer-1": { offer_id: "1" } } });
    expect((await shopper()("GET", "/xx-YYY/products/x")).status).toBe(404);
  });

  it("the cart API: add with a selling plan, a plan of another variant refused, sold out refused, change and remove", async () => {
    const go = shopper();
    const [first, second] = variants as [Variant, Variant];
    const added = await go("POST", "/cart/add.js", { id: first.id, quantity: 2, selling_plan: planId, properties: { Shipping: "March" } });
    expect(added.status).toBe(200);
    expect(added.json).toMatchObject({ variant_id: first.id, quantity: 2, selling_plan_allocation: { selling_plan: { id: planId } }, properties: { Shipping: "March" } });
    const refused = await go("POST", "/cart/add.js", { id: second.id, quantity: 1, selling_plan: planId });
    expect(refused).toMatchObject({ status: 422, json: { status: 422, description: "The selling plan is not available for this item." } });
    stock(second, 0);
    expect((await go("POST", "/cart/add.js", { id: second.id, quantity: 1 })).json).toMatchObject({ description: expect.stringContaining("sold out") as string });
    stock(second, 20);
    const cart = await go("GET", "/cart.js");
    expect(cart.json).toMatchObject({ item_count: 2, items: [{ variant_id: first.id, quantity: 2 }] });
    await go("POST", "/cart/change.js", { line: 1, quantity: 1 });
    expect((await go("GET", "/cart.js")).json).toMatchObject({ item_count: 1 });
    await go("POST", "/cart/change.js", { id: first.id, quantity: 0 });
    expect((await go("GET", "/cart.js")).json).toMatchObject({ item_count: 0, items: [] });
    // Another shopper has a cart of their own.
    expect((await shopper()("GET", "/cart.js")).json).toMatchObject({ item_count: 0 });
  });

  it("the checkout runs the app's validation from the variant's offer metafield: per-order max, mixed cart, markets, B2B; a valid cart becomes an order with its selling plan", async () => {
    const [first, second] = variants as [Variant, Variant];
    const europe = emulator.store.markets.find((m) => m.countryCodes.includes("FR"));
    putOffer(first, {
      version: 1,
      offer_id: "1",
      selling_plan_id: `gid://shopify/SellingPlan/${planId}`,
      limits: { per_order: { min: 1, max: 2 } },
      checkout: { mixed_cart: { allowed: false, error_message: "Preorders check out alone." } },
      markets: { enabled: true, applies_to_all_markets: false, market_ids: [`gid://shopify/Market/${europe?.id}`] },
      integrations: { b2b: { enabled: false } },
    });
    const go = shopper();
    await go("GET", `/products/${emulator.store.productOf(first).handle}?country=FR`);
    await go("POST", "/cart/add.js", { id: first.id, quantity: 3, selling_plan: planId });
    await go("POST", "/cart/add.js", { id: second.id, quantity: 1 });
    const ordersBefore = emulator.store.orders.length;
    const refused = await go("POST", "/checkout", { email: "b2b@example.com", company: "Acme Wholesale" });
    expect(refused.status).toBe(422);
    const messages = refused.json.errors?.map((e) => e.localizedMessage) ?? [];
    expect(messages).toHaveLength(3);
    expect(messages).toEqual(expect.arrayContaining([expect.stringContaining("at most 2"), expect.stringContaining("business account"), "Preorders check out alone."]));
    // Outside the offer's markets.
    await go("GET", "/cart?country=US");
    expect((await go("POST", "/checkout", {})).json.errors?.map((e) => e.localizedMessage)).toContainEqual(expect.stringContaining("cannot be preordered in your market"));
    expect(emulator.store.orders.length).toBe(ordersBefore);
    // Fixed: two units on the plan, nothing else, in Europe, not B2B.
    await go("GET", "/cart?country=FR");
    await go("POST", "/cart/change.js", { line: 2, quantity: 0 });
    await go("POST", "/cart/change.js", { line: 1, quantity: 2 });
    const placed = await go("POST", "/checkout", { email: "shopper@example.com" });
    expect(placed.status).toBe(201);
    const order = emulator.store.orders.at(-1);
    expect(placed.json).toEqual({ order: { id: `gid://shopify/Order/${order?.id}`, name: order?.name } });
    expect(order?.lineItems.map((l) => [l.variantId, l.quantity, l.sellingPlanId])).toEqual([[first.id, 2, planId]]);
    expect((await go("GET", "/cart.js")).json).toMatchObject({ item_count: 0 });
  });

  it("the checkout's validation reads the app's limit counters: the offer's remaining units on the shop, the signed-in customer's units on the customer (a guest: the cart alone)", async () => {
    const variant = variants[4] as Variant;
    const plan = planFor(variant);
    const namespace = `app--${emulator.appId}--preorder`;
    putOffer(variant, { version: 1, offer_id: "7", selling_plan_id: `gid://shopify/SellingPlan/${plan}`, limits: { per_customer: { max: 2 }, total: { max: 10 } } });
    emulator.store.putMetafield({ ownerType: "SHOP", ownerId: SHOP_ID, namespace, key: "remaining", type: "json", value: JSON.stringify({ "7": 1 }) });
    const customer = emulator.store.customers[1];
    if (!customer) throw new Error("no customer");
    emulator.store.putMetafield({ ownerType: "CUSTOMER", ownerId: customer.id, namespace, key: "units", type: "json", value: JSON.stringify({ "7": 1 }) });
    const title = `${emulator.store.productOf(variant).title} - ${variant.title}`;

    const go = shopper();
    expect((await go("GET", `/account/login?customer_id=${customer.id}`)).status).toBe(303);
    await go("POST", "/cart/add.js", { id: variant.id, quantity: 2, selling_plan: plan });
    const refused = await go("POST", "/checkout", {});
    expect(refused.status).toBe(422);
    expect(refused.json.errors).toEqual([
      { localizedMessage: `Only 1 unit of ${title} can still be preordered.`, target: "$.cart.lines[0].quantity" },
      { localizedMessage: `You can preorder at most 2 of ${title} per customer; you have preordered 1 already.`, target: "$.cart.lines[0].quantity" },
    ]);
    // One unit is within both.
    await go("POST", "/cart/change.js", { line: 1, quantity: 1 });
    expect((await go("POST", "/checkout", {})).status).toBe(201);

    // A guest: no past orders known, the cart alone is held to per_customer.max; the shop's count says 5 are left.
    emulator.store.putMetafield({ ownerType: "SHOP", ownerId: SHOP_ID, namespace, key: "remaining", type: "json", value: JSON.stringify({ "7": 5 }) });
    const guest = shopper();
    await guest("POST", "/cart/add.js", { id: variant.id, quantity: 3, selling_plan: plan });
    expect((await guest("POST", "/checkout", {})).json.errors).toEqual([{ localizedMessage: `You can preorder at most 2 of ${title} per customer.`, target: "$.cart.lines[0].quantity" }]);
    // No count on the shop yet: total.max itself is what is left.
    emulator.store.deleteMetafield("SHOP", SHOP_ID, namespace, "remaining");
    putOffer(variant, { version: 1, offer_id: "7", selling_plan_id: `gid://shopify/SellingPlan/${plan}`, limits: { total: { max: 2 } } });
    expect((await guest("POST", "/checkout", {})).json.errors).toEqual([{ localizedMessage: `Only 2 units of ${title} can still be preordered.`, target: "$.cart.lines[0].quantity" }]);
  });

  it("the app proxy forwards /apps/preorder/* with the platform's signed query, which the service's verification accepts", async () => {
    const go = shopper();
    const answer = await go("POST", "/apps/preorder/back_in_stock/signups?shop=forged.example&signature=00", { variant_id: 1, email: "a@example.com" });
    expect(answer).toMatchObject({ status: 202, json: { status: "waiting" } });
    const last = forwarded.at(-1);
    expect(last?.method).toBe("POST");
    expect(last?.body).toBe(JSON.stringify({ variant_id: 1, email: "a@example.com" }));
    const [path, search] = (last?.url ?? "").split("?");
    expect(path).toBe("/storefront/back_in_stock/signups");
    const query = new URLSearchParams(search);
    expect(Object.fromEntries(query)).toMatchObject({ shop: emulator.shopDomain, logged_in_customer_id: "", path_prefix: "/apps/preorder" });
    expect(query.get("signature")).toBe(appProxySignature(SECRET, query));
    expect(last?.headers["x-forwarded-for"]).toBe("127.0.0.1");
    expect(last?.headers.cookie).toBeUndefined();
    // Signed in: the customer is the proxy's logged_in_customer_id, and the checkout's order is theirs.
    const customer = emulator.store.customers[0];
    expect((await go("GET", `/account/login?customer_id=${customer?.id}`)).status).toBe(303);
    await go("GET", "/apps/preorder/preorders/offers/x/remaining");
    const signedIn = new URLSearchParams(forwarded.at(-1)?.url.split("?")[1]);
    expect(forwarded.at(-1)?.method).toBe("GET");
    expect(signedIn.get("logged_in_customer_id")).toBe(String(customer?.id));
    expect(signedIn.get("signature")).toBe(appProxySignature(SECRET, signedIn));
    await go("POST", "/cart/add.js", { id: variants[3]?.id, quantity: 1 });
    expect((await go("POST", "/checkout", {})).status).toBe(201);
    expect(emulator.store.orders.at(-1)?.customerId).toBe(customer?.id);
  });

  it("npm run emulator takes the app embed and the app proxy from the environment (the proxy needs the secret)", () => {
    expect(
      emulatorOptionsFromEnv({
        EMULATOR_APP_EMBED_URL: "http://127.0.0.1:3000/storefront/widget.js",
        EMULATOR_APP_PROXY_URL: "http://127.0.0.1:3000/storefront",
        EMULATOR_APP_PROXY_SUBPATH: "notify",
        PLATFORM_API_SECRET: "s3cret",
      }).options.storefront,
    ).toEqual({ appEmbedUrl: "http://127.0.0.1:3000/storefront/widget.js", appProxy: { url: "http://127.0.0.1:3000/storefront", secret: "s3cret", subpath: "notify" } });
    expect(() => emulatorOptionsFromEnv({ EMULATOR_APP_PROXY_URL: "http://127.0.0.1:3000/storefront" })).toThrow("EMULATOR_APP_PROXY_URL needs PLATFORM_API_SECRET");
    expect(emulatorOptionsFromEnv({}).options.storefront).toEqual({});
  });
});
