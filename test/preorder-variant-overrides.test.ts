import { beforeAll, describe, expect, it } from "vitest";
import type { PlatformClient } from "../src/platform/client.ts";
import { getOwnerMetafields } from "../src/platform/operations/metafields.ts";
import { STOREFRONT_NAMESPACE, storefrontKey } from "../src/preorders/sync/metafields.ts";
import { variantGid } from "./helpers/bis-seed.ts";
import { type Json, newOffer, offerCall } from "./helpers/offers.ts";
import { mirrorVariants, useSyncEnv, waitSynced } from "./helpers/offer-sync.ts";
import { orderPayload, placeOrder } from "./helpers/preorder-shop.ts";
import { invoke } from "./helpers/app.ts";

/**
 * Per-variant overrides of an offer (decision 0203): a variant's own shipping text and max count
 * reach that variant's storefront metafield, and the max count judges orders at ingest; the
 * offer's billing_widget_text reaches every variant's metafield.
 */
const env = useSyncEnv({ products: 4, variantsPerProduct: 2, locations: 1, markets: 1, collections: 1 });
let client: PlatformClient;
let legacy: number[];

beforeAll(async () => {
  client = await env.platform.clientFor(env.app.pool, env.shopId);
  legacy = (await mirrorVariants(env)).map((v) => v.legacy_id);
});

const call = (method: string, id: string, suffix = "", body?: unknown) => offerCall(env.app, env.key, method, id, suffix, body);

async function configs(offerId: string, variants: number[]): Promise<Json[]> {
  const found = await getOwnerMetafields(client, variants.map(variantGid), STOREFRONT_NAMESPACE, storefrontKey(offerId));
  return variants.map((v) => {
    const metafield = found.get(variantGid(v));
    expect(metafield, `metafield of variant ${v}`).toBeTruthy();
    return JSON.parse(metafield?.value ?? "null") as Json;
  });
}

const shippingText = (config: Json) => (config.shipping as { display: { shipping_text: string } }).display.shipping_text;
const perOrderMax = (config: Json) => (config.limits as { per_order: { max: number | null } }).per_order.max;

describe("per-variant overrides and the billing widget text", () => {
  it("a variant's shipping text and max count reach its own metafield only; clear_overrides puts the offer's back; billing_widget_text reaches every variant", async () => {
    await env.startWorker();
    const [a = 0, b = 0, c = 0] = legacy;
    const id = await newOffer(env, { products: { variant_ids: [a, b, c] } }, { enable: true });
    await waitSynced(env, id);
    const offerText = shippingText((await configs(id, [a]))[0] ?? {});

    const text = await call("POST", id, `/variants/${a}/set_shipping_text`, { text: "This colour ships in June." });
    expect(text.status, JSON.stringify(text.body)).toBe(202);
    expect(text.body).toEqual({ offer_id: id, variant_id: a, gid: variantGid(a), shipping_text: "This colour ships in June.", max_count: null });
    const max = await call("POST", id, `/variants/${encodeURIComponent(variantGid(b))}/set_max_count`, { max_count: 2 });
    expect(max.body).toMatchObject({ variant_id: b, shipping_text: null, max_count: 2 });
    const billing = await call("POST", id, "/payments/set_billing_widget_text", { text: "Pay 20% now, the rest when it ships." });
    expect(billing.status).toBe(202);
    expect(billing.body).toMatchObject({ billing_widget_text: "Pay 20% now, the rest when it ships." });
    await waitSynced(env, id);
    const listed = (await call("GET", id, "/variants")).body as { variants: { id: number; overrides: unknown }[] };
    expect(listed.variants.map((v) => [v.id, v.overrides])).toEqual([
      [a, { shipping_text: "This colour ships in June.", max_count: null }],
      [b, { shipping_text: null, max_count: 2 }],
      [c, { shipping_text: null, max_count: null }],
    ]);

    const [ca = {}, cb = {}, cc = {}] = await configs(id, [a, b, c]);
    expect([shippingText(ca), shippingText(cb), shippingText(cc)]).toEqual(["This colour ships in June.", offerText, offerText]);
    expect([perOrderMax(ca), perOrderMax(cb), perOrderMax(cc)]).toEqual([null, 2, null]);
    for (const config of [ca, cb, cc]) expect(config.payments).toMatchObject({ billing_widget_text: "Pay 20% now, the rest when it ships." });

    const cleared = await call("POST", id, `/variants/${a}/clear_overrides`, {});
    expect(cleared.body).toMatchObject({ shipping_text: null, max_count: null });
    expect((await call("POST", id, `/variants/${b}/set_max_count`, { max_count: null })).body).toMatchObject({ max_count: null });
    await waitSynced(env, id);
    const [again = {}, bAgain = {}] = await configs(id, [a, b]);
    expect(shippingText(again)).toBe(offerText);
    expect(perOrderMax(bAgain)).toBeNull();
    const { rows } = await env.app.pool.query("select 1 from preorder_offer_variant_overrides where offer_id = $1", [id]);
    expect(rows).toHaveLength(0);
  });

  it("refuses a variant outside the offer (404) and a max count under the offer's per_order.min (422)", async () => {
    const [a = 0, , , d = 0] = legacy;
    const id = await newOffer(env, { products: { variant_ids: [a] }, limits: { per_order: { min: 2 } } });
    const outside = await call("POST", id, `/variants/${d}/set_shipping_text`, { text: "x" });
    expect(outside.status).toBe(404);
    expect(outside.body).toEqual({ errors: [`Offer variant not found: ${d}`] });
    const low = await call("POST", id, `/variants/${a}/set_max_count`, { max_count: 1 });
    expect(low.status).toBe(422);
    expect(low.body).toEqual({ errors: ["max_count must be at least the offer's limits.per_order.min (2)"] });
  });

  it("at ingest, a variant's max count is its per-order maximum: 3 units of it are flagged, 3 of a variant without one are not", async () => {
    await env.startWorker();
    const [, , , , e = 0, f = 0] = legacy;
    const id = await newOffer(env, { products: { variant_ids: [e, f] } }, { enable: true });
    expect((await call("POST", id, `/variants/${e}/set_max_count`, { max_count: 2 })).status).toBe(202);
    const synced = await waitSynced(env, id);
    const plan = Number(synced.platform_selling_plan_id?.split("/").pop());
    const place = async (variant: number) => {
      const payload = orderPayload({ plan, email: "buyer@example.com" });
      payload.line_items = [{ id: payload.id * 10, variant_id: variant, product_id: 900, quantity: 3, price: "10.00", selling_plan_allocation: { selling_plan_id: plan } }];
      const orderId = await placeOrder(env, env.emulator.shopDomain, "orders/create", payload);
      const got = await invoke(env.app, "GET", `/preorders/orders/${orderId}`, { key: env.key });
      return got.body as { rule_breaks: unknown[]; app_tags: string[] };
    };
    const over = await place(e);
    expect(over.rule_breaks).toEqual([{ offer_id: id, rule: "per_order.max", variant_id: variantGid(e), limit: 2, units: 3 }]);
    expect(over.app_tags).toEqual(expect.arrayContaining(["preorder-limit-exceeded", "preorder-limit-per-order"]));
    expect((await place(f)).rule_breaks).toEqual([]);
  });
});
