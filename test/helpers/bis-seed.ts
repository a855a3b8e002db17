import type pg from "pg";
import { expect } from "vitest";
import { createShopWithKey, invoke, type TestApp } from "./app.ts";

/** Catalog mirror and back-in-stock rows written straight to the database, for signup and report tests. */

interface SeedVariant {
  /** Legacy numeric id; the gid is gid://shopify/ProductVariant/<n>. */
  n: number;
  product: number;
  price?: string;
  /** Units at one location; undefined: no inventory level mirrored. */
  available?: number;
  productTitle?: string;
  title?: string;
}

export const variantGid = (n: number) => `gid://shopify/ProductVariant/${n}`;
export const productGid = (n: number) => `gid://shopify/Product/${n}`;

export async function seedVariants(pool: pg.Pool, shopId: string, variants: SeedVariant[]): Promise<void> {
  for (const v of variants) {
    await pool.query(
      `insert into products (shop_id, id, title, handle, status, platform_updated_at) values ($1, $2, $3, $4, 'ACTIVE', now())
       on conflict (shop_id, id) do nothing`,
      [shopId, productGid(v.product), v.productTitle ?? `Product ${v.product}`, `product-${v.product}`],
    );
    await pool.query(
      `insert into variants (shop_id, id, legacy_id, product_id, title, sku, price, inventory_policy, inventory_item_id, platform_updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, 'DENY', $8, now())`,
      [shopId, variantGid(v.n), v.n, productGid(v.product), v.title ?? `Size ${v.n}`, `SKU-${v.n}`, v.price ?? "10.00", `gid://shopify/InventoryItem/${v.n}`],
    );
    if (v.available !== undefined) {
      await pool.query(
        `insert into inventory_levels (shop_id, inventory_item_id, location_id, available, platform_updated_at)
         values ($1, $2, 'gid://shopify/Location/1', $3, now())`,
        [shopId, `gid://shopify/InventoryItem/${v.n}`, v.available],
      );
    }
  }
}

interface SeedSignup {
  variant: number;
  product: number;
  channel?: "email" | "sms";
  contact: string;
  status?: "waiting" | "notified" | "converted" | "unsubscribed";
  createdAt: string;
  notifiedAt?: string | null;
  convertedAt?: string | null;
  orderId?: string | null;
}

/** Inserts signups as they would stand after the alert pipeline ran; answers their ids in order. */
export async function seedSignups(pool: pg.Pool, shopId: string, signups: SeedSignup[]): Promise<string[]> {
  const ids: string[] = [];
  for (const s of signups) {
    const { rows } = await pool.query<{ id: string }>(
      `insert into bis_signups (shop_id, variant_id, product_id, channel, contact, status, created_at, notified_at, converted_at, converted_order_id,
                                unsubscribed_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, case when $6 = 'unsubscribed' then now() end) returning id`,
      [
        shopId,
        variantGid(s.variant),
        productGid(s.product),
        s.channel ?? "email",
        s.contact,
        s.status ?? "waiting",
        s.createdAt,
        s.notifiedAt ?? null,
        s.convertedAt ?? null,
        s.orderId ?? null,
      ],
    );
    ids.push(rows[0]?.id ?? "");
  }
  return ids;
}

/** A platform order as the orders webhooks store it (REST shape: numeric variant ids, prices as strings). */
export async function seedOrder(
  pool: pg.Pool,
  shopId: string,
  orderNumber: number,
  lines: { variant: number; quantity: number; price: string }[],
  options: { cancelled?: boolean } = {},
): Promise<string> {
  const id = `gid://shopify/Order/${orderNumber}`;
  const payload = {
    id: orderNumber,
    admin_graphql_api_id: id,
    cancelled_at: options.cancelled ? "2026-01-10T00:00:00Z" : null,
    currency: "USD",
    line_items: lines.map((l, i) => ({ id: orderNumber * 100 + i, variant_id: l.variant, quantity: l.quantity, price: l.price })),
    updated_at: "2026-01-05T00:00:00Z",
  };
  await pool.query("insert into platform_orders (shop_id, id, payload, platform_updated_at) values ($1, $2, $3, now())", [shopId, id, JSON.stringify(payload)]);
  return id;
}

/** A shop of a test's own: its id, API key and platform domain. */
export interface SeedShop {
  shopId: string;
  key: string;
  domain: string;
}

/**
 * A shop with a key and a platform domain derived from its name (`<name>.platform.local`, so
 * webhooks find it); `settings`: its back-in-stock settings PATCHed (asserting the 202).
 */
export async function newShop(app: TestApp, name: string, settings?: Record<string, unknown>): Promise<SeedShop> {
  const { shopId, apiKey } = await createShopWithKey(app.pool, name);
  const domain = `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}.platform.local`;
  await app.pool.query("update shops set platform_domain = $2 where id = $1", [shopId, domain]);
  if (settings) {
    const answer = await invoke(app, "PATCH", "/back_in_stock/settings", { key: apiKey, body: settings });
    expect(answer.status).toBe(202);
  }
  return { shopId, key: apiKey, domain };
}
