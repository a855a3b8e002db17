import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { getOrder as getPlatformOrder } from "../src/platform/operations/orders.ts";
import type { PlatformClient } from "../src/platform/client.ts";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { seedPreorderOrder } from "./helpers/preorders.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useTestEnv({
  shop: "Refund Shop",
  emulator: { seed: { products: 2, variantsPerProduct: 1, locations: 1, markets: 1, collections: 1 }, throttle: { maximumAvailable: 100_000, restoreRate: 100_000 } },
  connect: true,
  worker: true,
});
let otherKey: string;
let client: PlatformClient;

beforeAll(async () => {
  ({ apiKey: otherKey } = await createShopWithKey(env.app.pool, "Other Shop"));
  client = await env.platform.clientFor(env.app.pool, env.shopId);
});

const refund = (id: string, body: unknown = {}, key = env.key) => invoke(env.app, "POST", `/preorders/orders/${id}/refund`, { key, body });

interface OrderBody {
  status: string;
  refunded_amount: string;
  refunded_at: string | null;
  tags: string[];
}

async function storedCount(): Promise<number | undefined> {
  const { rows } = await env.app.pool.query<{ preorder_count: number }>(
    "select preorder_count from preorder_variant_counts where shop_id = $1 and variant_id = 'gid://shopify/ProductVariant/1'",
    [env.shopId],
  );
  return rows[0]?.preorder_count;
}

describe("POST /preorders/orders/{id}/refund", () => {
  it("records partial refunds, then the rest: the status becomes refunded and the order stops counting", async () => {
    const id = await seedPreorderOrder(env.app.pool, env.shopId, { total: "100.00", lines: [{ quantity: 3, price: "100.00" }] });
    await invoke(env.app, "POST", "/preorders/product_variants/1/recalculate_preorder_count", { key: env.key, body: {} });
    const partial = await refund(id, { amount: "30.50" });
    expect(partial.status, JSON.stringify(partial.body)).toBe(202);
    expect(partial.body).toMatchObject({ id, status: "placed", refunded_amount: "30.50", refunded_at: null });
    const second = await refund(id, { amount: 20 });
    expect(second.body).toMatchObject({ status: "placed", refunded_amount: "50.50" });
    const tooMuch = await refund(id, { amount: "60.00" });
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.body).toEqual({ errors: [`A refund of 60.00 USD exceeds the 49.50 USD left to refund on preorder order ${id}`] });
    const rest = await refund(id);
    expect(rest.status).toBe(202);
    const body = rest.body as OrderBody;
    expect(body).toMatchObject({ status: "refunded", refunded_amount: "100.00" });
    expect(body.refunded_at).not.toBeNull();
    const { rows } = await env.app.pool.query("select preorder_count from preorder_variant_counts where shop_id = $1", [env.shopId]);
    expect(rows).toEqual([{ preorder_count: 0 }]);
    expect(await storedCount()).toBe(0);
    // Refunding a refunded order in full again answers it as it is; an amount is refused.
    expect((await refund(id)).body).toMatchObject({ status: "refunded", refunded_amount: "100.00", refunded_at: body.refunded_at });
    expect((await refund(id, { amount: "1.00" })).body).toEqual({ errors: [`Preorder order ${id} is already refunded`] });
    // Other actions see it refunded.
    expect((await invoke(env.app, "POST", `/preorders/orders/${id}/release`, { key: env.key, body: {} })).body).toEqual({ errors: [`Preorder order ${id} is refunded`] });
  });

  it("refunds what was paid of a deposit order only, and refuses a cancelled order with nothing paid (409)", async () => {
    const deposit = await seedPreorderOrder(env.app.pool, env.shopId, { outstanding: "60.00", lines: [{ price: "100.00" }] });
    const answer = await refund(deposit);
    expect(answer.body).toMatchObject({ status: "refunded", refunded_amount: "40.00" });
    const unpaid = await seedPreorderOrder(env.app.pool, env.shopId, { outstanding: "50.00", cancelledAt: new Date(), financialStatus: "pending", lines: [{ price: "50.00" }] });
    const refused = await refund(unpaid);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ errors: [`Preorder order ${unpaid} is cancelled and nothing was paid: there is nothing to refund`] });
    const paidCancelled = await seedPreorderOrder(env.app.pool, env.shopId, { cancelledAt: new Date(), lines: [{ price: "100.00" }] });
    expect((await refund(paidCancelled, { amount: "10.00" })).body).toMatchObject({ status: "cancelled", refunded_amount: "10.00" });
  });

  it("refuses malformed amounts and unknown fields (422), and answers 404 for another shop's or an unknown order", async () => {
    const id = await seedPreorderOrder(env.app.pool, env.shopId, { lines: [{ price: "100.00" }] });
    for (const amount of ["0", "-1", "1.234", "abc", 0, true]) {
      const answer = await refund(id, { amount });
      expect(answer.status, JSON.stringify(amount)).toBe(422);
      expect(answer.body).toEqual({ errors: ["amount must be a positive amount with at most two decimals, e.g. 12.50"] });
    }
    expect((await refund(id, { reason: "x" })).body).toEqual({ errors: ["reason is not allowed"] });
    expect((await refund(id, {}, otherKey)).body).toEqual({ errors: [`Preorder order not found: ${id}`] });
    expect((await refund("nope")).status).toBe(404);
  });
});

describe("POST /preorders/orders/{id}/set_tags, add_tags, remove_tags", () => {
  async function platformOrder(tags: string[]): Promise<string> {
    const variant = env.emulator.store.variants[0];
    if (!variant) throw new Error("no seeded variant");
    const created = await fetch(`${env.emulator.origin}/admin/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ line_items: [{ variant_id: variant.id, quantity: 1, price: "10.00" }], email: "tags@example.com", tags: tags.join(", ") }),
    });
    expect(created.status).toBe(201);
    const { order } = (await created.json()) as { order: { admin_graphql_api_id: string } };
    return order.admin_graphql_api_id;
  }

  interface JobBody {
    status: string;
    result: { outcomes: { order_id: string; outcome: string; reason: string | null }[] };
  }

  async function finished(answer: { status: number; body: unknown }): Promise<JobBody> {
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const { status_url: url } = answer.body as { status_url: string };
    return waitFor("the tags job", async () => {
      const job = (await invoke(env.app, "GET", url.replace("/api/v2/external", ""), { key: env.key })).body as JobBody;
      return ["completed", "failed", "cancelled"].includes(job.status) ? job : undefined;
    });
  }

  const platformTags = async (gid: string) => ((await getPlatformOrder(client, gid))?.tags ?? []).slice().sort();
  const localTags = async (id: string) => ((await invoke(env.app, "GET", `/preorders/orders/${id}`, { key: env.key })).body as OrderBody).tags;

  it("set_tags replaces the order's tags on the platform through a job; add_tags and remove_tags change only theirs", async () => {
    const gid = await platformOrder(["old", "keep"]);
    expect(await platformTags(gid)).toEqual(["keep", "old"]);
    const id = await seedPreorderOrder(env.app.pool, env.shopId, { platformOrderId: gid, tags: ["keep", "old"], lines: [{ price: "100.00" }] });

    const set = await finished(await invoke(env.app, "POST", `/preorders/orders/${id}/set_tags`, { key: env.key, body: { tags: ["keep", "wave-2"] } }));
    expect(set.result.outcomes).toEqual([{ order_id: id, outcome: "tagged", reason: null }]);
    expect(await platformTags(gid)).toEqual(["keep", "wave-2"]);
    expect(await localTags(id)).toEqual(["keep", "wave-2"]);

    const added = await finished(await invoke(env.app, "POST", `/preorders/orders/${id}/add_tags`, { key: env.key, body: { tags: ["vip"] } }));
    expect(added.result.outcomes[0]?.outcome).toBe("tagged");
    expect(await platformTags(gid)).toEqual(["keep", "vip", "wave-2"]);

    const removed = await finished(await invoke(env.app, "POST", `/preorders/orders/${id}/remove_tags`, { key: env.key, body: { tags: ["keep"] } }));
    expect(removed.result.outcomes[0]?.outcome).toBe("tagged");
    expect(await platformTags(gid)).toEqual(["vip", "wave-2"]);
    expect(await localTags(id)).toEqual(["vip", "wave-2"]);

    const same = await finished(await invoke(env.app, "POST", `/preorders/orders/${id}/set_tags`, { key: env.key, body: { tags: ["wave-2", "vip"] } }));
    expect(same.result.outcomes).toEqual([{ order_id: id, outcome: "skipped", reason: "tags already as requested" }]);

    const cleared = await finished(await invoke(env.app, "POST", `/preorders/orders/${id}/set_tags`, { key: env.key, body: { tags: [] } }));
    expect(cleared.result.outcomes[0]?.outcome).toBe("tagged");
    expect(await platformTags(gid)).toEqual([]);
  });

  it("refuses bad bodies (422) and answers 404 for another shop's or an unknown order", async () => {
    const id = await seedPreorderOrder(env.app.pool, env.shopId, { lines: [{ price: "100.00" }] });
    const call = (action: string, body: unknown, key = env.key) => invoke(env.app, "POST", `/preorders/orders/${id}/${action}`, { key, body });
    expect((await call("set_tags", {})).body).toEqual({ errors: ["tags is required"] });
    expect((await call("add_tags", { tags: [] })).body).toEqual({ errors: ["tags must contain at least 1 items"] });
    expect((await call("set_tags", { tags: "a" })).body).toEqual({ errors: ["tags must be an array"] });
    expect((await call("remove_tags", { tags: ["a"], extra: 1 })).body).toEqual({ errors: ["extra is not allowed"] });
    expect((await call("set_tags", { tags: ["a"] }, otherKey)).body).toEqual({ errors: [`Preorder order not found: ${id}`] });
    expect((await invoke(env.app, "POST", `/preorders/orders/${randomUUID()}/add_tags`, { key: env.key, body: { tags: ["a"] } })).status).toBe(404);
  });
});
