import { beforeAll, describe, expect, it } from "vitest";
import { listJobs } from "../src/ops/data.ts";
import { signWebhook } from "../src/platform/webhooks.ts";
import { waitFor } from "./helpers/wait.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { type Delivery, postDelivery, signedDelivery } from "./helpers/webhook-delivery.ts";

const DOMAIN = "webhooks-test.platform.local";
const env = useTestEnv({ worker: true });

beforeAll(async () => {
  await env.app.pool.query("update shops set platform_domain = $2 where id = $1", [env.shopId, DOMAIN]);
});

const delivery = (topic: string, payload: unknown, overrides: Record<string, string> = {}): Delivery => signedDelivery(topic, payload, DOMAIN, overrides);
const send = (d: Delivery): Promise<{ status: number; body: unknown }> => postDelivery(env.app.origin, d);

async function count(sql: string, values: unknown[] = []): Promise<number> {
  const { rows } = await env.app.pool.query<{ n: number }>(`select count(*)::int as n from (${sql}) t`, values);
  return rows[0]?.n ?? 0;
}

const inventory = (available: number, updatedAt: string) => ({
  inventory_item_id: 501,
  location_id: 7,
  available,
  updated_at: updatedAt,
});

describe("platform webhooks", () => {
  it("refuses a bad or missing signature with 401 and records nothing", async () => {
    const forged = delivery("inventory_levels/update", inventory(3, "2026-11-01T00:00:00Z"), { "x-shopify-hmac-sha256": signWebhook("wrong-secret", "{}") });
    expect(await send(forged)).toEqual({ status: 401, body: { errors: ["Webhook signature is missing or invalid"] } });
    const unsigned = delivery("inventory_levels/update", inventory(3, "2026-11-01T00:00:00Z"));
    delete unsigned.headers["x-shopify-hmac-sha256"];
    expect((await send(unsigned)).status).toBe(401);
    const tampered = delivery("inventory_levels/update", inventory(3, "2026-11-01T00:00:00Z"));
    tampered.body = tampered.body.toString().replace('"available":3', '"available":300');
    expect((await send(tampered)).status).toBe(401);
    expect(await count("select 1 from webhook_deliveries")).toBe(0);
  });

  it("refuses an unknown topic or shop", async () => {
    const topic = await send(delivery("carts/update", { id: 1 }));
    expect(topic).toEqual({ status: 404, body: { errors: ["Unknown webhook topic: carts/update"] } });
    const shop = await send(delivery("orders/create", { id: 1, updated_at: "2026-11-01T00:00:00Z" }, { "x-shopify-shop-domain": "nobody.platform.local" }));
    expect(shop).toEqual({ status: 404, body: { errors: ["Unknown shop: nobody.platform.local"] } });
    expect(await count("select 1 from webhook_deliveries")).toBe(0);
  });

  it("processes a repeated delivery once, and the inventory update reaches the mirror", async () => {
    const first = delivery("inventory_levels/update", inventory(5, "2026-11-02T00:00:00Z"));
    expect(await send(first)).toEqual({ status: 200, body: { status: "accepted" } });
    expect(await send(first)).toEqual({ status: 200, body: { status: "duplicate" } });
    expect(await count("select 1 from webhook_deliveries where shop_id = $1", [env.shopId])).toBe(1);
    const level = await waitFor("the level in the mirror", async () => {
      const { rows } = await env.app.pool.query<{ available: number }>(
        "select available from inventory_levels where shop_id = $1 and inventory_item_id = 'gid://shopify/InventoryItem/501' and location_id = 'gid://shopify/Location/7'",
        [env.shopId],
      );
      return rows[0];
    });
    expect(level.available).toBe(5);
    await waitFor("the delivery to be marked processed", async () =>
      (await count("select 1 from webhook_deliveries where processed_at is not null")) === 1 ? true : undefined,
    );
    // graphile-worker deletes a finished job after the run returns (its completions are batched):
    // the delivery can be marked processed a moment before its job is gone.
    await waitFor("the webhook job to be gone from the queue", async () =>
      (await count("select 1 from graphile_worker.jobs where task_identifier = 'platform_webhook'")) === 0 ? true : undefined,
    );
  });

  it("never lets an older delivery undo a newer quantity", async () => {
    expect((await send(delivery("inventory_levels/update", inventory(1, "2026-10-01T00:00:00Z")))).status).toBe(200);
    await waitFor("both deliveries processed", async () =>
      (await count("select 1 from webhook_deliveries where processed_at is null")) === 0 ? true : undefined,
    );
    const { rows } = await env.app.pool.query<{ available: number }>(
      "select available from inventory_levels where shop_id = $1 and inventory_item_id = 'gid://shopify/InventoryItem/501'",
      [env.shopId],
    );
    expect(rows[0]?.available).toBe(5);
  });

  it("refreshes a product and its variants from products/update", async () => {
    const payload = {
      id: 900,
      admin_graphql_api_id: "gid://shopify/Product/900",
      title: "Renamed tee",
      handle: "renamed-tee",
      tags: "summer, preorder-exclude",
      updated_at: "2026-11-03T00:00:00Z",
      variants: [{ id: 9001, title: "S", sku: "T-S", price: "12.50", inventory_item_id: 19001, updated_at: "2026-11-03T00:00:00Z" }],
    };
    expect((await send(delivery("products/update", payload))).status).toBe(200);
    const product = await waitFor("the product in the mirror", async () => {
      const { rows } = await env.app.pool.query<{ title: string; tags: string[] }>("select title, tags from products where id = 'gid://shopify/Product/900'");
      return rows[0];
    });
    expect(product).toEqual({ title: "Renamed tee", tags: ["summer", "preorder-exclude"] });
    const { rows } = await env.app.pool.query<{ legacy_id: string; price: string; product_id: string }>(
      "select legacy_id, price, product_id from variants where id = 'gid://shopify/ProductVariant/9001'",
    );
    expect(rows[0]).toEqual({ legacy_id: "9001", price: "12.50", product_id: "gid://shopify/Product/900" });
  });

  it.each([
    ["not the topic's shape", "orders/create", { hello: "world" }, "the payload is not the topic's shape: id: Invalid input"],
    ["not an object", "products/update", [1, 2], "the payload is not the topic's shape: payload: Invalid input: expected object, received array"],
    ["a value the database refuses", "inventory_levels/update", { inventory_item_id: 502, location_id: 7, available: 1, updated_at: "not a time" }, "the database refuses a value of the payload: invalid input syntax for type timestamp with time zone"],
  ])("fails a signed delivery whose payload is %s at once, with its reason, and never retries it", async (_, topic, payload, reason) => {
    const answer = await send(delivery(topic, payload));
    expect(answer).toEqual({ status: 200, body: { status: "accepted" } });
    const { rows: ids } = await env.app.pool.query<{ id: string }>("select id from webhook_deliveries where topic = $1 and payload = $2::jsonb", [topic, JSON.stringify(payload)]);
    const deliveryId = ids[0]?.id ?? "";
    const job = await waitFor("the webhook job to fail", async () => {
      const { rows } = await env.app.pool.query<{ attempts: number; max_attempts: number; last_error: string | null }>(
        `select q.attempts, q.max_attempts, q.last_error from graphile_worker._private_jobs q join graphile_worker._private_tasks t on t.id = q.task_id
         where t.identifier = 'platform_webhook' and q.payload ->> 'delivery_id' = $1 and q.locked_at is null`,
        [deliveryId],
      );
      return rows[0]?.last_error ? rows[0] : undefined;
    });
    // Out of attempts after the first: graphile-worker never runs it again.
    expect(job).toMatchObject({ attempts: 1, max_attempts: 1 });
    expect(job.last_error).toContain(`platform webhook delivery ${deliveryId} (${topic}) can never be applied: ${reason}`);
    // Operators see it failed, with its reason and shop, in the console's and the CLI's job list.
    const listed = await listJobs(env.app.pool, { source: "queue", status: "failed", task: "platform_webhook", shop: env.shopId });
    expect(listed.find((j) => j.last_error?.includes(`delivery ${deliveryId} `))).toMatchObject({ status: "failed", shop_id: env.shopId });
    expect(await count("select 1 from webhook_deliveries where id = $1 and processed_at is null", [deliveryId])).toBe(1);
  });
});
