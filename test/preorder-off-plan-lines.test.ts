import { beforeAll, describe, expect, it } from "vitest";
import { PREORDER_OFFER_PROPERTY } from "../src/storefront/line-properties.ts";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { emulatorOrder } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";
import { webhooksProcessed } from "./helpers/webhook-delivery.ts";

// An offer sold without a platform selling plan (use_platform_selling_plan false, which a split into
// orders forces): the widget marks its lines with the offer's id (decision 0209), and ingest takes
// them as the offer's preorder lines, so the split and the offer's rules reach real checkouts.
const env = useTestEnv({
  shop: "Off Plan Shop",
  emulator: { seed: { products: 3, variantsPerProduct: 2, locations: 1, markets: 1, collections: 1 }, throttle: { maximumAvailable: 100_000, restoreRate: 100_000 }, webhooks: { backoffMs: 20 } },
  connect: true,
  worker: true,
});

const variant = (index: number) => env.emulator.store.variants[index]?.id ?? 0;
let offerId: string;

interface OrderBody {
  line_items: { id: string; variant_id: string | null; selling_plan_id: string | null; offer_id: string | null; preorder: boolean }[];
  order_split: { type: string; state: string; orders: { platform_order_id: string | null }[] } | null;
}

async function recorded(platformOrderId: string): Promise<string | undefined> {
  const { rows } = await env.app.pool.query<{ id: string }>("select id from preorder_orders where platform_order_id = $1", [platformOrderId]);
  return rows[0]?.id;
}

async function placeRaw(lineItems: Record<string, unknown>[], email: string): Promise<{ platformId: number; gid: string }> {
  const created = await fetch(`${env.emulator.origin}/admin/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ line_items: lineItems, email }) });
  expect(created.status).toBe(201);
  const { order } = (await created.json()) as { order: { id: number; admin_graphql_api_id: string } };
  await env.emulator.webhooksSettled();
  await webhooksProcessed(env.app.pool);
  return { platformId: order.id, gid: order.admin_graphql_api_id };
}

beforeAll(async () => {
  const settings = { shipping: { fulfillment: { split: { enabled: true, type: "orders", order_suffix: "-PRE", order_tag: "preorder-moved" } } }, advanced: { use_platform_selling_plan: false } };
  const { rows } = await env.app.pool.query<{ id: string }>(
    "insert into preorder_offers (shop_id, name, internal_name, status, settings, platform_selling_plan_id) values ($1, 'Off plan', 'Off plan', 'active', $2, null) returning id",
    [env.shopId, JSON.stringify(settings)],
  );
  offerId = rows[0]?.id ?? "";
  await env.app.pool.query("insert into preorder_offer_variants (offer_id, shop_id, variant_id, legacy_id) values ($1, $2, $3, $4)", [
    offerId,
    env.shopId,
    `gid://shopify/ProductVariant/${variant(0)}`,
    variant(0),
  ]);
});

describe("preorder lines named by the widget's line property", () => {
  it("an order whose line names an offer sold off the platform selling plan is a preorder order, and the offer's split into orders moves that line", async () => {
    const { orderId, platform } = await emulatorOrder(env, {
      line_items: [
        { variant_id: variant(0), quantity: 2, properties: { [PREORDER_OFFER_PROPERTY]: offerId } },
        { variant_id: variant(3), quantity: 1 },
      ],
      email: "off-plan@example.com",
    });
    const answer = await invoke(env.app, "GET", `/preorders/orders/${orderId}`, { key: env.key });
    const body = answer.body as OrderBody;
    expect(body.line_items.map((l) => [l.offer_id, l.preorder])).toEqual([
      [offerId, true],
      [null, false],
    ]);
    const split = await waitFor("the split into orders", async () => {
      const now = (await invoke(env.app, "GET", `/preorders/orders/${orderId}`, { key: env.key })).body as OrderBody;
      return now.order_split?.state === "done" ? now.order_split : undefined;
    });
    expect(split.type).toBe("orders");
    const moved = env.emulator.store.orders.filter((o) => o.customAttributes?.some((a) => a.value === platform.admin_graphql_api_id));
    expect(moved.map((o) => o.lineItems.map((l) => [l.variantId, l.quantity]))).toEqual([[[variant(0), 2]]]);
  });

  it("ignores the property where it names an offer that does not hold the variant, an unknown offer or no uuid: no preorder order", async () => {
    for (const [index, value] of [
      [1, offerId],
      [0, "00000000-0000-4000-8000-000000000000"],
      [0, "not-an-offer"],
    ] as const) {
      const placed = await placeRaw([{ variant_id: variant(index), quantity: 1, properties: { [PREORDER_OFFER_PROPERTY]: value } }], `forged-${index}@example.com`);
      await webhooksProcessed(env.app.pool);
      expect(await recorded(placed.gid), `${index} ${value}`).toBeUndefined();
    }
  });
});
