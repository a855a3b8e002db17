import type pg from "pg";
import { expect } from "vitest";
import { type ApiAnswer, invoke, type TestApp } from "./app.ts";

/** Helpers of the preorder offer tests. */

export type Json = Record<string, unknown>;

/** Creates an offer over the API and returns its full body (asserting the 202). */
export async function createOffer(app: TestApp, key: string, body: Json = {}): Promise<Json & { id: string }> {
  const answer = await invoke(app, "POST", "/preorders/offers", { key, body: { name: "Spring drop", ...body } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return answer.body as Json & { id: string };
}

/**
 * Creates an offer over the API (asserting the 202) and answers its id; `enable`: enables it too
 * (asserting the 202), as a merchant's live offers are: a draft stays off the platform.
 */
export async function newOffer(env: { app: TestApp; key: string }, body: Json = {}, options: { enable?: boolean } = {}): Promise<string> {
  const { id } = await createOffer(env.app, env.key, body);
  if (options.enable) expect((await offerCall(env.app, env.key, "POST", id, "/enable")).status).toBe(202);
  return id;
}

/** A call on an offer's path: `/preorders/offers/{id}` + suffix. */
export function offerCall(app: TestApp, key: string, method: string, id: string, suffix = "", body?: unknown): Promise<ApiAnswer> {
  return invoke(app, method, `/preorders/offers/${id}${suffix}`, { key, ...(body !== undefined ? { body } : {}) });
}

/** A variant of the mirror: global id `gid://shopify/ProductVariant/<legacy>`. */
export const variantGid = (legacy: number): string => `gid://shopify/ProductVariant/${legacy}`;

/**
 * A small catalog mirror for a shop: products P1 (tagged `no-preorder`, in collection C1) and P2
 * (in C2), variants 101 and 102 of P1, 201 of P2; markets m-fr and m-us.
 */
export async function seedCatalog(pool: pg.Pool, shopId: string): Promise<void> {
  await pool.query(
    `insert into products (shop_id, id, title, handle, status, tags, collection_ids, platform_updated_at) values
       ($1, 'gid://shopify/Product/1', 'Jacket', 'jacket', 'ACTIVE', '{no-preorder}', '{gid://shopify/Collection/1}', now()),
       ($1, 'gid://shopify/Product/2', 'Boots', 'boots', 'ACTIVE', '{}', '{gid://shopify/Collection/2}', now())`,
    [shopId],
  );
  await pool.query(
    `insert into variants (shop_id, id, legacy_id, product_id, title, price, inventory_policy, inventory_item_id, platform_updated_at) values
       ($1, 'gid://shopify/ProductVariant/101', 101, 'gid://shopify/Product/1', 'S', 10, 'DENY', 'gid://shopify/InventoryItem/101', now()),
       ($1, 'gid://shopify/ProductVariant/102', 102, 'gid://shopify/Product/1', 'M', 10, 'DENY', 'gid://shopify/InventoryItem/102', now()),
       ($1, 'gid://shopify/ProductVariant/201', 201, 'gid://shopify/Product/2', '42', 20, 'DENY', 'gid://shopify/InventoryItem/201', now())`,
    [shopId],
  );
  await pool.query(
    `insert into collections (shop_id, id, title, handle, platform_updated_at) values
       ($1, 'gid://shopify/Collection/1', 'Outerwear', 'outerwear', now()),
       ($1, 'gid://shopify/Collection/2', 'Shoes', 'shoes', now())`,
    [shopId],
  );
  await pool.query(
    `insert into markets (shop_id, id, name, active, is_primary, countries) values
       ($1, 'm-fr', 'France', true, true, '{FR}'), ($1, 'm-us', 'United States', true, false, '{US}')`,
    [shopId],
  );
}

/** The offer's sync state and revision, straight from the table. */
export async function syncState(pool: pg.Pool, id: string): Promise<{ sync_status: string; revision: string; updated_at: Date }> {
  const { rows } = await pool.query<{ sync_status: string; revision: string; updated_at: Date }>(
    "select sync_status, revision::text, updated_at from preorder_offers where id = $1",
    [id],
  );
  const row = rows[0];
  if (!row) throw new Error(`no offer ${id}`);
  return row;
}
