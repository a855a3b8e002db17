import { beforeAll, describe, expect, it } from "vitest";
import { ACTIONS } from "../src/action-registry.ts";
import { offerSyncKey } from "../src/preorders/sync/enqueue.ts";
import { removeJobByKey } from "../src/queue/admin.ts";
import { invoke } from "./helpers/app.ts";
import { newOffer, seedCatalog } from "./helpers/offers.ts";
import { useTestEnv } from "./helpers/fixture.ts";

/**
 * Every write action on an offer changes what its storefront metafield or its selling plan says,
 * so each must move the offer (revision, updated_at) and queue its sync: a schedule change did
 * not, and the storefront kept the old countdown end until another setting changed (issue 31).
 * The list comes from the registry: a new write action on an offer fails here until it has a
 * sample below, and then until it queues the sync.
 */

const env = useTestEnv();

beforeAll(async () => {
  await seedCatalog(env.app.pool, env.shopId);
});

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

/** A body each write action takes on an offer of variants 101 and 102, in the order they run (each changes something). */
const SAMPLES: [string, unknown][] = [
  ["PATCH /preorders/offers/{id}", { name: "Renamed drop" }],
  ["POST /preorders/offers/{id}/enable", {}],
  ["POST /preorders/offers/{id}/schedule", { disable_at: inDays(30) }],
  ["POST /preorders/offers/{id}/unschedule", {}],
  ["PATCH /preorders/offers/{id}/widget", { button: { text: "Reserve yours" } }],
  ["POST /preorders/offers/{id}/widget/set_button_text", { text: "Preorder now" }],
  ["POST /preorders/offers/{id}/widget/set_button_colors", { text_color: "#ffffff", background_color: "#111111" }],
  ["POST /preorders/offers/{id}/widget/disable_button_colors", {}],
  ["POST /preorders/offers/{id}/widget/set_badge_text", { text: "Soon" }],
  ["POST /preorders/offers/{id}/widget/set_badge_colors", { text_color: "#ffffff", background_color: "#222222" }],
  ["POST /preorders/offers/{id}/widget/set_disclaimer_text", { text: "Ships when it arrives." }],
  ["POST /preorders/offers/{id}/widget/set_disclaimer_colors", { text_color: "#445566" }],
  ["PATCH /preorders/offers/{id}/shipping", { display: { shipping_text: "Ships in spring" } }],
  ["POST /preorders/offers/{id}/shipping/set_delivery_date", { date: inDays(40) }],
  ["POST /preorders/offers/{id}/shipping/set_delivery_asap", {}],
  ["POST /preorders/offers/{id}/shipping/set_delivery_days", { days: 5 }],
  ["POST /preorders/offers/{id}/shipping/set_shipping_text", { text: "Ships in five days" }],
  ["POST /preorders/offers/{id}/shipping/set_split_order_tag", { tag: "split-preorder" }],
  ["POST /preorders/offers/{id}/shipping/set_split_order_suffix", { suffix: "-PRE" }],
  ["POST /preorders/offers/{id}/shipping/set_split_transaction_gateway", { gateway: "manual" }],
  ["PATCH /preorders/offers/{id}/payments", { show_partial_first: true }],
  ["POST /preorders/offers/{id}/payments/set_billing_widget_text", { text: "Pay the rest later" }],
  ["POST /preorders/offers/{id}/payments/set_option_copy", { type: "full", title: "Pay it all now" }],
  ["POST /preorders/offers/{id}/payments/enable_option", { type: "deposit", deposit_percent: 30 }],
  ["POST /preorders/offers/{id}/payments/disable_option", { type: "deposit" }],
  ["PATCH /preorders/offers/{id}/limits", { per_order: { max: 5 } }],
  ["PATCH /preorders/offers/{id}/checkout", { terms: { text: "Preorder terms" } }],
  ["POST /preorders/offers/{id}/checkout/set_mixed_cart_error_message", { message: "Check out preorders alone." }],
  ["POST /preorders/offers/{id}/checkout/set_terms_text", { text: "I accept the preorder terms." }],
  ["POST /preorders/offers/{id}/checkout/set_order_tags", { tags: ["preorder", "spring-drop"] }],
  ["PATCH /preorders/offers/{id}/inventory", { provider: "app" }],
  ["POST /preorders/offers/{id}/inventory/set_reservation_timing", { timing: "on_fulfillment" }],
  ["PATCH /preorders/offers/{id}/markets", { applies_to_all_markets: false }],
  ["PATCH /preorders/offers/{id}/countdown", { text: "Ends in" }],
  ["POST /preorders/offers/{id}/countdown/set_style", { type: "banner" }],
  ["POST /preorders/offers/{id}/countdown/set_custom_end_date", { date: inDays(20) }],
  ["PATCH /preorders/offers/{id}/integrations", { pos: { enabled: true } }],
  ["PATCH /preorders/offers/{id}/translations", { locales: ["fr"] }],
  ["PATCH /preorders/offers/{id}/advanced", { custom_css: ".preorder { color: red; }" }],
  ["POST /preorders/offers/{id}/advanced/set_button_text_override", { state: "out_of_stock", text: "Back soon" }],
  ["POST /preorders/offers/{id}/advanced/attach_to_platform_selling_plan", {}],
  ["POST /preorders/offers/{id}/products/add_variants", { variant_ids: ["201"] }],
  ["POST /preorders/offers/{id}/products/remove_variants", { variant_ids: ["201"] }],
  ["POST /preorders/offers/{id}/variants/{variant_id}/set_shipping_text", { text: "This size ships later" }],
  ["POST /preorders/offers/{id}/variants/{variant_id}/set_max_count", { max_count: 2 }],
  ["POST /preorders/offers/{id}/variants/{variant_id}/clear_overrides", {}],
  ["POST /preorders/offers/{id}/products/set_source_to_collection", { collection_id: "gid://shopify/Collection/1" }],
  ["POST /preorders/offers/{id}/products/set_collection", { collection_id: "gid://shopify/Collection/2" }],
  ["PATCH /preorders/offers/{id}/products", { exclusion_tag: "no-preorder" }],
  ["POST /preorders/offers/{id}/products/set_source_to_all", { confirm: true }],
  ["POST /preorders/offers/{id}/products/set_source_to_custom", { variant_ids: ["101", "102"] }],
  ["POST /preorders/offers/{id}/disable", {}],
  ["DELETE /preorders/offers/{id}", undefined],
  ["POST /preorders/offers/{id}/restore", {}],
];

const writesOnAnOffer = () =>
  ACTIONS.filter((a) => a.method !== "GET" && a.path.startsWith("/preorders/offers/{id}"))
    .map((a) => `${a.method} ${a.path}`)
    .sort();

async function offerState(id: string): Promise<{ revision: number; updated_at: Date; sync_status: string; queued: number }> {
  const { rows } = await env.app.pool.query<{ revision: number; updated_at: Date; sync_status: string; queued: number }>(
    `select o.revision::int as revision, o.updated_at, o.sync_status,
            (select count(*)::int from graphile_worker.jobs j where j.key = $2) as queued
     from preorder_offers o where o.id = $1`,
    [id, offerSyncKey(id)],
  );
  const row = rows[0];
  if (!row) throw new Error(`no offer ${id}`);
  return row;
}

describe("every write action on an offer queues its sync", () => {
  it("has a sample for each write action the registry has on an offer", () => {
    expect(SAMPLES.map(([key]) => key).sort()).toEqual(writesOnAnOffer());
  });

  it("moves the offer's revision and queues its sync, action after action", async () => {
    const id = await newOffer(env, { products: { variant_ids: [101, 102] } });
    // No worker runs here: each sync queued stays queued, so the next action's is seen being queued again.
    const moved: string[] = [];
    for (const [key, body] of SAMPLES) {
      const [method = "", template = ""] = key.split(" ");
      const before = await offerState(id);
      await removeJobByKey(env.app.pool, offerSyncKey(id));
      const path = template.replace("{id}", id).replace("{variant_id}", "101");
      const answer = await invoke(env.app, method, path, { key: env.key, ...(body !== undefined ? { body } : {}) });
      expect([200, 201, 202, 204], `${key}: ${JSON.stringify(answer.body)}`).toContain(answer.status);
      const after = await offerState(id);
      expect(after.revision, key).toBeGreaterThan(before.revision);
      expect(after.sync_status, key).toBe("pending");
      expect(after.queued, key).toBe(1);
      moved.push(key);
    }
    expect(moved).toHaveLength(SAMPLES.length);
  });
});
