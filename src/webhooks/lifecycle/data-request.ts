import type pg from "pg";
import { z } from "zod";
import type { Db } from "../../core/db.ts";
import { declareJob, enqueueJob } from "../../core/jobs.ts";
import { CUSTOMER_MATCH, customerMatchValues } from "./customer-match.ts";
import { customersDataRequestPayload, orderGids } from "./payloads.ts";

/**
 * Application job `customer_data_request` (its run: src/webhooks/jobs/customer-data-request.ts):
 * what the service holds about one customer, as a JSON export the merchant downloads under the
 * shop's API key (GET /account/data_requests lists them; decision 0223).
 */
export const customerDataRequestJob = declareJob({
  name: "customer_data_request",
  payload: z.object({
    data_request_id: z.string(),
    customer: z.object({ id: z.string(), email: z.string().nullable(), phone: z.string().nullable() }),
    orders_requested: z.array(z.string()),
  }),
});

/**
 * customers/data_request: queues the export job in the delivery's own transaction, so a
 * redelivery (a duplicate, or the same delivery's job retried) never queues a second one.
 */
export async function applyCustomersDataRequest(db: Db, shopId: string, payload: unknown): Promise<void> {
  const request = customersDataRequestPayload.parse(payload);
  await enqueueJob(
    db,
    customerDataRequestJob,
    { data_request_id: request.data_request.id, customer: request.customer, orders_requested: request.orders_requested },
    { shopId, maxAttempts: 5 },
  );
}

type DataRequest = z.output<typeof customerDataRequestJob.payload>;

/**
 * Everything the service holds about the customer, in one statement: their back-in-stock
 * signups and the messages logged for them, their preorder orders (those requested, and those of
 * their customer id, e-mail or phone) with lines, rule breaks and notifications. Internal columns
 * (shop ids, leases, provider ids) are left out.
 */
const CUSTOMER_DATA = `
  with signups as (
    select s.id, s.variant_id, s.product_id, s.channel, s.contact, s.locale, s.consent, s.customer_id, s.first_name, s.quantity, s.market_id, s.status,
           s.created_at, s.notified_at, s.converted_at, s.converted_order_id, s.unsubscribed_at
    from bis_signups s where ${CUSTOMER_MATCH.signup("s")}
  ), orders as (
    select o.* from preorder_orders o where o.shop_id = $1 and (o.platform_order_id = any($5::text[]) or ${CUSTOMER_MATCH.order("o")})
  )
  select
    (select coalesce(jsonb_agg(to_jsonb(s) order by s.created_at), '[]') from signups s) as signups,
    (select coalesce(jsonb_agg(jsonb_build_object('id', n.id, 'signup_id', n.signup_id, 'variant_id', n.variant_id, 'stage', n.stage,
        'channel', n.channel, 'status', n.status, 'blocked_reason', n.blocked_reason, 'subject', n.subject, 'created_at', n.created_at) order by n.id), '[]')
     from bis_notifications n where n.shop_id = $1 and n.signup_id in (select id from signups)) as messages,
    (select coalesce(jsonb_agg(jsonb_build_object(
        'id', o.id, 'platform_order_id', o.platform_order_id, 'name', o.name, 'email', o.email, 'phone', o.phone, 'customer_id', o.customer_id,
        'locale', o.locale, 'currency', o.currency, 'total_price', o.total_price, 'status', o.status, 'financial_status', o.financial_status,
        'fulfillment_status', o.fulfillment_status, 'placed_at', o.platform_created_at, 'rule_breaks', o.rule_breaks,
        'lines', (select coalesce(jsonb_agg(jsonb_build_object('platform_line_id', l.platform_line_id, 'variant_id', l.variant_id, 'product_id', l.product_id,
                   'quantity', l.quantity, 'price', l.price, 'selling_plan_id', l.selling_plan_id, 'payment_option', l.payment_option) order by l.platform_line_id), '[]')
                  from preorder_order_lines l where l.order_id = o.id),
        'notifications', (select coalesce(jsonb_agg(jsonb_build_object('stage', p.stage, 'channel', p.channel, 'recipient', p.recipient, 'status', p.status,
                   'blocked_reason', p.blocked_reason, 'sent_at', p.sent_at, 'created_at', p.created_at) order by p.created_at), '[]')
                  from preorder_notifications p where p.order_id = o.id)
      ) order by o.platform_created_at), '[]') from orders o) as preorder_orders`;

export interface CustomerData {
  data_request_id: string;
  customer: DataRequest["customer"];
  orders_requested: string[];
  back_in_stock_signups: unknown[];
  back_in_stock_messages: unknown[];
  preorder_orders: unknown[];
}

export async function customerData(pool: pg.Pool, shopId: string, request: DataRequest): Promise<CustomerData> {
  const { rows } = await pool.query<{ signups: unknown[]; messages: unknown[]; preorder_orders: unknown[] }>(CUSTOMER_DATA, [
    ...customerMatchValues(shopId, request.customer),
    orderGids(request.orders_requested),
  ]);
  const row = rows[0];
  return {
    data_request_id: request.data_request_id,
    customer: request.customer,
    orders_requested: orderGids(request.orders_requested),
    back_in_stock_signups: row?.signups ?? [],
    back_in_stock_messages: row?.messages ?? [],
    preorder_orders: row?.preorder_orders ?? [],
  };
}
