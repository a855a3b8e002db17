import pg from "pg";
import { z } from "zod";
import { convertSignupsFromOrder } from "../back_in_stock/alerts/conversions.ts";
import { detectRestock } from "../back_in_stock/alerts/runs.ts";
import { applyPreorderOrder } from "../preorders/orders/ingest.ts";
import { upsertInventoryLevels } from "../catalog/mirror.ts";
import type { InventoryLevelRecord } from "../platform/catalog.ts";
import { withTransaction } from "../core/db.ts";
import type { Db } from "../core/db.ts";
import type { PreparingDb } from "../core/rate-limit.ts";
import { PermanentJobFailure } from "../core/tasks.ts";
import type { WebhookTopic } from "../platform/webhooks.ts";
import { applyCustomersDataRequest } from "./lifecycle/data-request.ts";
import { applyCustomersRedact } from "./lifecycle/customer-redact.ts";
import type { TopicHandler } from "./lifecycle/delivery.ts";
import { applyShopRedact } from "./lifecycle/shop-redact.ts";
import { applyAppUninstalled } from "./lifecycle/uninstalled.ts";

const gid = (type: string, id: number | string) => `gid://shopify/${type}/${id}`;

const inventoryPayload = z.object({
  inventory_item_id: z.union([z.number(), z.string()]),
  location_id: z.union([z.number(), z.string()]),
  available: z.number().int(),
  updated_at: z.string(),
});

const productPayload = z.object({
  id: z.union([z.number(), z.string()]),
  title: z.string(),
  handle: z.string(),
  tags: z.union([z.string(), z.array(z.string())]),
  updated_at: z.string(),
  variants: z
    .array(
      z.object({
        id: z.union([z.number(), z.string()]),
        title: z.string(),
        sku: z.string().nullable().optional(),
        price: z.union([z.string(), z.number()]).transform(String),
        inventory_item_id: z.union([z.number(), z.string()]),
        updated_at: z.string(),
      }),
    )
    .default([]),
});

const orderPayload = z.object({
  id: z.union([z.number(), z.string()]),
  admin_graphql_api_id: z.string().optional(),
  updated_at: z.string(),
});

/** The level an inventory_levels/update payload carries, as the mirror stores it; throws a ZodError for another shape. */
export function inventoryLevelOf(payload: unknown): InventoryLevelRecord {
  const level = inventoryPayload.parse(payload);
  return {
    inventoryItemId: gid("InventoryItem", level.inventory_item_id),
    locationId: gid("Location", level.location_id),
    available: level.available,
    updatedAt: level.updated_at,
  };
}

async function applyInventory(db: Db & PreparingDb, shopId: string, payload: unknown): Promise<void> {
  const level = inventoryLevelOf(payload);
  // A variant whose stock this raises to the back-in-stock minimum gets an alert run.
  await detectRestock(db, shopId, level.inventoryItemId, () => upsertInventoryLevels(db, shopId, new Date(), [level]));
}

/** A product webhook carries the product and its variants: enough to refresh both without a call back. */
async function applyProduct(db: Db, shopId: string, payload: unknown): Promise<void> {
  const product = productPayload.parse(payload);
  const productId = gid("Product", product.id);
  const tags = Array.isArray(product.tags) ? product.tags : product.tags.split(",").map((t) => t.trim()).filter(Boolean);
  await db.query(
    `insert into products (shop_id, id, title, handle, status, tags, platform_updated_at)
     values ($1, $2, $3, $4, 'ACTIVE', $5, $6)
     on conflict (shop_id, id) do update set title = excluded.title, handle = excluded.handle, tags = excluded.tags,
       platform_updated_at = excluded.platform_updated_at
     where products.platform_updated_at <= excluded.platform_updated_at`,
    [shopId, productId, product.title, product.handle, tags, product.updated_at],
  );
  const variants = product.variants.map((v) => ({
    id: gid("ProductVariant", v.id),
    legacyId: Number(v.id),
    title: v.title,
    sku: v.sku ?? null,
    price: v.price,
    inventoryItemId: gid("InventoryItem", v.inventory_item_id),
    updatedAt: v.updated_at,
  }));
  if (variants.length === 0) return;
  await db.query(
    `insert into variants (shop_id, id, legacy_id, product_id, title, sku, price, inventory_policy, inventory_item_id, platform_updated_at)
     select $1, r.id, r."legacyId", $3, r.title, r.sku, r.price, 'DENY', r."inventoryItemId", r."updatedAt"
     from jsonb_to_recordset($2::jsonb) as r(id text, "legacyId" bigint, title text, sku text, price numeric, "inventoryItemId" text, "updatedAt" timestamptz)
     on conflict (shop_id, id) do update set title = excluded.title, sku = excluded.sku, price = excluded.price,
       inventory_item_id = excluded.inventory_item_id, platform_updated_at = excluded.platform_updated_at
     where variants.platform_updated_at <= excluded.platform_updated_at`,
    [shopId, JSON.stringify(variants), productId],
  );
}

async function applyOrder(db: Db, shopId: string, payload: unknown): Promise<void> {
  const order = orderPayload.parse(payload);
  await db.query(
    `insert into platform_orders (shop_id, id, payload, platform_updated_at) values ($1, $2, $3, $4)
     on conflict (shop_id, id) do update set payload = excluded.payload, platform_updated_at = excluded.platform_updated_at
     where platform_orders.platform_updated_at <= excluded.platform_updated_at`,
    [shopId, order.admin_graphql_api_id ?? gid("Order", order.id), JSON.stringify(payload), order.updated_at],
  );
  await applyPreorderOrder(db, shopId, payload);
  await convertSignupsFromOrder(db, shopId, payload);
}

const HANDLERS: Record<WebhookTopic, TopicHandler> = {
  "inventory_levels/update": applyInventory,
  "products/update": applyProduct,
  "orders/create": applyOrder,
  "orders/paid": applyOrder,
  "orders/cancelled": applyOrder,
  "orders/fulfilled": applyOrder,
  "app/uninstalled": applyAppUninstalled,
  "customers/data_request": applyCustomersDataRequest,
  "customers/redact": applyCustomersRedact,
  "shop/redact": applyShopRedact,
};

/** What still applies to a shop whose data shop/redact deleted: only the compliance topics (a catalog or order webhook would bring data back). */
const AFTER_REDACT: ReadonlySet<WebhookTopic> = new Set(["customers/data_request", "customers/redact", "shop/redact"]);

/**
 * Why a handler's failure means the payload itself is unusable (not the topic's shape, or a value
 * the database refuses: SQLSTATE class 22, data exception), or undefined for a failure a retry may
 * mend (a lost connection, a deadlock). The same payload would fail the same way every time.
 */
function unusablePayload(error: unknown): string | undefined {
  if (error instanceof z.ZodError) {
    // zod's own words: they name what was received (the handlers parse without reportInput, so
    // formatIssues would take a wrong type for an absent field).
    return `the payload is not the topic's shape: ${error.issues.map((issue) => `${issue.path.join(".") || "payload"}: ${issue.message}`).join("; ")}`;
  }
  if (error instanceof pg.DatabaseError && error.code?.startsWith("22")) return `the database refuses a value of the payload: ${error.message}`;
  return undefined;
}

/**
 * Applies one recorded delivery to the mirror, once: a processed delivery is skipped; one whose
 * payload can never be applied throws a PermanentJobFailure (failed at once, not retried).
 */
export async function processWebhook(pool: pg.Pool, deliveryId: number): Promise<"processed" | "skipped"> {
  return withTransaction(pool, async (db) => {
    const { rows } = await db.query<{ shop_id: string; topic: WebhookTopic; payload: unknown; triggered_at: Date; redacted: boolean }>(
      `select d.shop_id, d.topic, d.payload, coalesce(d.triggered_at, d.received_at) as triggered_at, s.platform_redacted_at is not null as redacted
       from webhook_deliveries d join shops s on s.id = d.shop_id where d.id = $1 and d.processed_at is null for update of d`,
      [deliveryId],
    );
    const delivery = rows[0];
    if (!delivery) return "skipped";
    try {
      if (!delivery.redacted || AFTER_REDACT.has(delivery.topic)) {
        await HANDLERS[delivery.topic](db, delivery.shop_id, delivery.payload, { id: deliveryId, triggeredAt: delivery.triggered_at });
      }
    } catch (error) {
      const reason = unusablePayload(error);
      if (reason === undefined) throw error;
      throw new PermanentJobFailure(`platform webhook delivery ${String(deliveryId)} (${delivery.topic}) can never be applied: ${reason}`, { cause: error });
    }
    await db.query("update webhook_deliveries set processed_at = now() where id = $1", [deliveryId]);
    return "processed";
  });
}
