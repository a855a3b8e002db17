import { randomUUID } from "node:crypto";
import type pg from "pg";

/** One line of a seeded preorder order. */
export interface SeedLine {
  /** The variant's legacy id (default 1): `gid://shopify/ProductVariant/<variant>`. */
  variant?: number | string;
  /** The product's legacy id: `gid://shopify/Product/<product>`; none by default. */
  product?: number;
  quantity?: number;
  /** Unit price (default 10). */
  price?: number | string;
  offerId?: string | null;
  /** The selling plan's legacy id (default 1). */
  sellingPlan?: number;
}

/** A seeded preorder order: every field has a default; amounts as numbers or decimal strings. */
export interface SeedOrder {
  platformOrderId?: string;
  email?: string;
  currency?: string;
  /** total_price; default: the lines' sum. */
  total?: number | string;
  /** What is still to pay (default 0). */
  outstanding?: number | string;
  /** The largest outstanding seen, the balance after the deposit (default: `outstanding`). */
  balance?: number | string;
  /** Default: paid when nothing is outstanding, else partially_paid. */
  financialStatus?: string;
  tags?: string[];
  /** platform_created_at and platform_updated_at (default now). */
  createdAt?: string;
  cancelledAt?: string | Date;
  platformCancelledAt?: string;
  marketId?: string;
  /** Default: one line, variant 1, quantity 1, price 10. */
  lines?: SeedLine[];
}

/**
 * A preorder order of the shop written straight into the order tables, as order ingestion writes
 * it (its lines' platform ids numbered from 1); answers its id.
 */
export async function seedPreorderOrder(pool: pg.Pool, shopId: string, order: SeedOrder = {}): Promise<string> {
  const lines = order.lines ?? [{}];
  const total = order.total ?? lines.reduce((sum, l) => sum + Number(l.price ?? 10) * (l.quantity ?? 1), 0).toFixed(2);
  const outstanding = order.outstanding ?? 0;
  const { rows } = await pool.query<{ id: string }>(
    `insert into preorder_orders (shop_id, platform_order_id, email, currency, total_price, total_outstanding, balance_amount, financial_status,
                                  tags, platform_created_at, platform_updated_at, cancelled_at, platform_cancelled_at, market_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, coalesce($10::timestamptz, now()), coalesce($10::timestamptz, now()), $11, $12, $13) returning id`,
    [
      shopId,
      order.platformOrderId ?? `gid://shopify/Order/${randomUUID()}`,
      order.email ?? null,
      order.currency ?? "USD",
      total,
      outstanding,
      order.balance ?? outstanding,
      order.financialStatus ?? (Number(outstanding) === 0 ? "paid" : "partially_paid"),
      order.tags ?? [],
      order.createdAt ?? null,
      order.cancelledAt ?? null,
      order.platformCancelledAt ?? null,
      order.marketId ?? null,
    ],
  );
  const id = rows[0]?.id ?? "";
  for (const [n, line] of lines.entries()) {
    await pool.query(
      `insert into preorder_order_lines (order_id, shop_id, platform_line_id, variant_id, product_id, quantity, price, selling_plan_id, offer_id)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        id,
        shopId,
        String(n + 1),
        `gid://shopify/ProductVariant/${line.variant ?? 1}`,
        line.product === undefined ? null : `gid://shopify/Product/${line.product}`,
        line.quantity ?? 1,
        line.price ?? 10,
        `gid://shopify/SellingPlan/${line.sellingPlan ?? 1}`,
        line.offerId ?? null,
      ],
    );
  }
  return id;
}

/** An offer row of the shop (a draft), on a selling plan (its gid, or its legacy id) when given, as the offers' sync records it; answers its id. */
export async function seedOffer(pool: pg.Pool, shopId: string, name: string, plan?: string | number): Promise<string> {
  const planGid = typeof plan === "number" ? `gid://shopify/SellingPlan/${plan}` : (plan ?? null);
  const { rows } = await pool.query<{ id: string }>(
    "insert into preorder_offers (shop_id, name, internal_name, platform_selling_plan_id) values ($1, $2, $2, $3) returning id",
    [shopId, name, planGid],
  );
  return rows[0]?.id ?? "";
}
