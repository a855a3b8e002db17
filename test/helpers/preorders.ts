import { randomUUID } from "node:crypto";
import type pg from "pg";

/**
 * A paid preorder order of `quantity` units on the offer's selling plan, written straight into the
 * order tables: what limits.total.current_count counts.
 */
export async function seedPreorderUnits(pool: pg.Pool, shopId: string, offerId: string, quantity: number): Promise<void> {
  const { rows } = await pool.query<{ id: string }>(
    `insert into preorder_orders (shop_id, platform_order_id, currency, total_price, total_outstanding, financial_status,
                                  platform_created_at, platform_updated_at)
     values ($1, $2, 'USD', 10, 0, 'paid', now(), now()) returning id`,
    [shopId, `gid://platform/Order/${randomUUID()}`],
  );
  await pool.query(
    `insert into preorder_order_lines (order_id, shop_id, platform_line_id, variant_id, quantity, price, selling_plan_id, offer_id)
     values ($1, $2, '1', 'gid://platform/ProductVariant/1', $3, 10, 'gid://platform/SellingPlan/1', $4)`,
    [rows[0]?.id, shopId, quantity, offerId],
  );
}
