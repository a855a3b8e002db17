import { beforeAll, describe, expect, it } from "vitest";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { mirrorVariants, waitSynced } from "./helpers/offer-sync.ts";
import { newOffer, offerCall } from "./helpers/offers.ts";
import { orderTopics } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";
import { webhooksProcessed } from "./helpers/webhook-delivery.ts";

/**
 * An offer's integrations.pos at the point of sale, end to end (decision 0213): the service's sync
 * writes the switches into the variant's metafield, the emulator's point of sale runs the app's
 * POS extension on them, and ingest knows a POS order by its source name: the offer's preorder
 * order with its source and location, or, when an offer not sold at the point of sale got through
 * anyway, a rule break (rule_breaks pos, the preorder-pos-disabled tag, preorder_order.rules_broken).
 */
const env = useTestEnv({
  shop: "Point Of Sale Shop",
  emulator: { seed: { products: 3, variantsPerProduct: 2, locations: 2, markets: 1, collections: 1 }, throttle: { maximumAvailable: 100_000, restoreRate: 100_000 }, webhooks: { backoffMs: 20 } },
  connect: "synced",
  worker: true,
  config: { DEVELOPER_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" },
});

interface OrderBody {
  source_name: string | null;
  retail_location_id: string | null;
  offer_ids: string[];
  line_items: { offer_id: string | null; preorder: boolean; quantity: number }[];
  rule_breaks: { offer_id: string; rule: string }[];
  app_tags: string[];
}

let variantId: number;
let locationId: number;
let offerId: string;
let planId: number;

async function post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${env.emulator.origin}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** The service's preorder order of a platform order, once its webhooks are processed. */
async function arrived(platformOrderId: string): Promise<{ id: string; body: OrderBody }> {
  await env.emulator.webhooksSettled();
  await webhooksProcessed(env.app.pool);
  const { rows } = await env.app.pool.query<{ id: string }>("select id from preorder_orders where platform_order_id = $1", [platformOrderId]);
  const id = rows[0]?.id;
  if (!id) throw new Error(`order ${platformOrderId} is no preorder order`);
  const got = await invoke(env.app, "GET", `/preorders/orders/${id}`, { key: env.key });
  expect(got.status).toBe(200);
  return { id, body: got.body as OrderBody };
}

const topics = (orderId: string) => orderTopics(env.app.pool, orderId);

beforeAll(async () => {
  const hook = await invoke(env.app, "PATCH", "/preorders/developer_settings", { key: env.key, body: { webhook: { url: "http://127.0.0.1:9/hooks", secret: "0123456789abcdef-pos-orders" } } });
  expect(hook.status).toBe(202);
  const [first] = await mirrorVariants(env);
  variantId = first?.legacy_id ?? 0;
  locationId = env.emulator.store.activeLocations()[0]?.id ?? 0;
  offerId = await newOffer(env, { products: { variant_ids: [variantId] }, integrations: { pos: { enabled: true, skip_inventory_check: false } } }, { enable: true });
  const synced = await waitSynced(env, offerId);
  planId = Number(synced.platform_selling_plan_id?.split("/").pop());
  // Three at the POS's location; tracked, as the app's stock check needs.
  const variant = env.emulator.store.variant(variantId);
  if (variant) variant.tracked = true;
  expect((await post("/admin/inventory", { variant_id: variantId, location_id: locationId, available: 3 })).status).toBe(200);
});

describe("orders of the point of sale", () => {
  it("a POS sale of an offer sold at the point of sale arrives as the offer's preorder order, with its POS source and location; more than the location holds is refused", async () => {
    const short = await post("/pos/checkout", { location_id: locationId, line_items: [{ variant_id: variantId, quantity: 4, selling_plan_id: planId }] });
    expect(short.status).toBe(422);
    expect(short.json.errors).toMatchObject([{ handle: "preorder-pos-inventory" }]);

    const sold = await post("/pos/checkout", { location_id: locationId, line_items: [{ variant_id: variantId, quantity: 2, selling_plan_id: planId }], email: "counter@example.com" });
    expect(sold.status).toBe(201);
    const { id, body } = await arrived((sold.json.order as { id: string }).id);
    expect(body).toMatchObject({ source_name: "pos", retail_location_id: `gid://shopify/Location/${locationId}`, offer_ids: [offerId], rule_breaks: [] });
    expect(body.line_items).toEqual([expect.objectContaining({ offer_id: offerId, preorder: true, quantity: 2 })]);
    expect(body.app_tags).not.toContain("preorder-pos-disabled");
    expect(await topics(id)).toEqual(["preorder_order.created"]);
  });

  it("with pos.enabled off the POS refuses the offer's line; a POS order that got through anyway is flagged preorder-pos-disabled, with the event; a web order of the offer is not", async () => {
    expect((await offerCall(env.app, env.key, "PATCH", offerId, "/integrations", { pos: { enabled: false } })).status).toBe(202);
    await waitSynced(env, offerId);
    const refused = await post("/pos/checkout", { location_id: locationId, line_items: [{ variant_id: variantId, quantity: 1, selling_plan_id: planId }] });
    expect(refused.status).toBe(422);
    expect(refused.json.errors).toMatchObject([{ level: "ERROR", handle: "preorder-pos-disabled", target: "$.cart.lineItems[0]" }]);

    // As if the POS had read a metafield that lagged the switch: the order is placed at the POS without the app's check.
    const through = await post("/admin/orders", { line_items: [{ variant_id: variantId, quantity: 1, selling_plan_id: planId }], email: "lagged@example.com", source_name: "pos", location_id: locationId });
    expect(through.status).toBe(201);
    const platformOrder = through.json.order as { id: number; admin_graphql_api_id: string };
    const flagged = await arrived(platformOrder.admin_graphql_api_id);
    expect(flagged.body.source_name).toBe("pos");
    expect(flagged.body.rule_breaks).toEqual([{ offer_id: offerId, rule: "pos", variant_id: null, limit: null, units: null }]);
    expect(flagged.body.app_tags).toContain("preorder-pos-disabled");
    expect(await topics(flagged.id)).toEqual(["preorder_order.created", "preorder_order.rules_broken"]);
    // The tag reaches the platform order.
    await waitFor("the platform order tagged preorder-pos-disabled", async () => (env.emulator.store.order(platformOrder.id)?.tags.includes("preorder-pos-disabled") ? true : undefined));

    const web = await post("/admin/orders", { line_items: [{ variant_id: variantId, quantity: 1, selling_plan_id: planId }], email: "online@example.com" });
    const online = await arrived((web.json.order as { admin_graphql_api_id: string }).admin_graphql_api_id);
    expect(online.body.source_name).toBe("web");
    expect(online.body.rule_breaks).toEqual([]);
  });
});
