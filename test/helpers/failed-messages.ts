import { randomUUID } from "node:crypto";
import type pg from "pg";

/**
 * Messages of both areas written straight into their ledgers, as a send leaves them: a
 * back-in-stock alert (bis_ledger, its signup failed too when it is a failed `initial`) and a
 * preorder customer notification (preorder_notifications, on an order of its own).
 */

export interface SeededAlert {
  signupId: string;
  ledgerId: string;
}

export async function seedAlert(pool: pg.Pool, shopId: string, fields: { contact: string; status: "pending" | "failed"; error?: string }): Promise<SeededAlert> {
  const signup = await pool.query<{ id: string }>(
    `insert into bis_signups (shop_id, variant_id, channel, contact, consent, status, last_error)
     values ($1, 'gid://shopify/ProductVariant/9001', 'email', $2, true, $3, $4) returning id`,
    [shopId, fields.contact, fields.status, fields.error ?? null],
  );
  const signupId = signup.rows[0]?.id ?? "";
  const ledger = await pool.query<{ id: string }>(
    "insert into bis_ledger (shop_id, signup_id, stage, status, attempts, last_error) values ($1, $2, 'initial', $3, 3, $4) returning id",
    [shopId, signupId, fields.status, fields.error ?? null],
  );
  return { signupId, ledgerId: ledger.rows[0]?.id ?? "" };
}

export async function seedNotification(pool: pg.Pool, shopId: string, fields: { recipient: string; status: "pending" | "failed"; error?: string }): Promise<string> {
  const order = await pool.query<{ id: string }>(
    `insert into preorder_orders (shop_id, platform_order_id, currency, total_price, total_outstanding, financial_status, platform_created_at, platform_updated_at)
     values ($1, $2, 'USD', 10, 0, 'paid', now(), now()) returning id`,
    [shopId, `gid://shopify/Order/${randomUUID()}`],
  );
  const notification = await pool.query<{ id: string }>(
    `insert into preorder_notifications (shop_id, order_id, stage, channel, recipient, locale, status, attempts, last_error)
     values ($1, $2, 'confirmation', 'email', $3, 'en', $4, 2, $5) returning id`,
    [shopId, order.rows[0]?.id, fields.recipient, fields.status, fields.error ?? null],
  );
  return notification.rows[0]?.id ?? "";
}
