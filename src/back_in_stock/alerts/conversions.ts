import { z } from "zod";
import type { Db } from "../../core/db.ts";
import { enqueueFlowTriggers } from "../../providers/flow/enqueue.ts";
import { loadBackInStockSettings } from "../settings/settings.ts";

/**
 * CONVERSIONS. An order of the shop converts the signups it answers: status `notified`, the
 * variant among the order's line items, the contact the order's (e-mail, or phone, or the
 * platform customer), alerted within attribution.window_days before the order. They become
 * `converted` (converted_at: the order's time, converted_order_id), which also ends their
 * pending reminder. A cancelled order converts nothing; a repeated order webhook nothing more.
 */

const id = z.union([z.number(), z.string()]);
const phone = z.string().nullish();

const orderSchema = z.object({
  id,
  admin_graphql_api_id: z.string().optional(),
  email: z.string().nullish(),
  contact_email: z.string().nullish(),
  phone,
  created_at: z.string().nullish(),
  cancelled_at: z.string().nullish(),
  customer: z.object({ id: id.nullish(), email: z.string().nullish(), phone }).nullish(),
  billing_address: z.object({ phone }).nullish(),
  shipping_address: z.object({ phone }).nullish(),
  line_items: z.array(z.object({ variant_id: id.nullish() })).default([]),
});

function gidOf(type: string, value: string | number): string {
  const text = String(value);
  return text.startsWith("gid://") ? text : `gid://shopify/${type}/${text}`;
}

function normalizePhone(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  const compact = value.replace(/[\s.\-()]/g, "");
  return /^\+[1-9]\d{1,14}$/.test(compact) ? compact : undefined;
}

function present<T>(values: (T | undefined | null)[]): T[] {
  return [...new Set(values.filter((v): v is T => v !== undefined && v !== null && v !== ""))];
}

/** Called by the order webhooks (src/webhooks/process.ts) in the delivery's transaction; answers how many converted. */
export async function convertSignupsFromOrder(db: Db, shopId: string, payload: unknown): Promise<number> {
  const parsed = orderSchema.safeParse(payload);
  if (!parsed.success) return 0;
  const order = parsed.data;
  if (order.cancelled_at) return 0;
  const variants = present(order.line_items.map((l) => (l.variant_id === null || l.variant_id === undefined ? undefined : gidOf("ProductVariant", l.variant_id))));
  if (variants.length === 0) return 0;
  const emails = present([order.email, order.contact_email, order.customer?.email].map((e) => e?.trim().toLowerCase()));
  const phones = present([order.phone, order.customer?.phone, order.billing_address?.phone, order.shipping_address?.phone].map(normalizePhone));
  const customerId = order.customer?.id;
  const customers = customerId === null || customerId === undefined ? [] : [gidOf("Customer", customerId)];
  if (emails.length + phones.length + customers.length === 0) return 0;
  const placedAt = order.created_at ? new Date(order.created_at) : new Date();
  if (Number.isNaN(placedAt.getTime())) return 0;
  const { attribution } = await loadBackInStockSettings(db, shopId);
  const { rows } = await db.query<{ converted: number; ids: string[] }>(
    `with converted as (
       update bis_signups s set status = 'converted', converted_at = $7, converted_order_id = $8, updated_at = now()
       where s.shop_id = $1 and s.status = 'notified' and s.variant_id = any($2::text[])
         and ((s.channel = 'email' and s.contact = any($3::text[]))
              or (s.channel = 'sms' and s.contact = any($4::text[]))
              or s.customer_id = any($5::text[]))
         and s.notified_at <= $7 and s.notified_at >= $7::timestamptz - make_interval(days => $6)
       returning s.id
     ), unqueued as (
       delete from bis_reminder_queue q using converted c where q.signup_id = c.id
     )
     select count(*)::int as converted, coalesce(array_agg(id::text), '{}') as ids from converted`,
    [shopId, variants, emails, phones, customers, attribution.window_days, placedAt, order.admin_graphql_api_id ?? gidOf("Order", order.id)],
  );
  const ids = rows[0]?.ids ?? [];
  if (ids.length > 0) {
    await enqueueFlowTriggers(
      db,
      ids.map((id) => ({
        shopId,
        trigger: "back_in_stock_signup_converted" as const,
        key: id,
        payload: { order_id: Number(order.id) || null, customer_id: customerId === null || customerId === undefined ? null : Number(customerId) || null, "Signup ID": id },
      })),
    );
  }
  return rows[0]?.converted ?? 0;
}
