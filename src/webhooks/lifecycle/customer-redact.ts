import type { Db } from "../../core/db.ts";
import { customersRedactPayload, orderGids } from "./payloads.ts";
import { CUSTOMER_MATCH, customerMatchValues } from "./customer-match.ts";

/** Personal fields of an order payload (Shopify's REST order), removed from stored copies. */
const ORDER_PERSONAL_KEYS = ["email", "contact_email", "phone", "customer", "billing_address", "shipping_address", "client_details", "browser_ip"];
const stripOrder = (column: string) => ORDER_PERSONAL_KEYS.reduce((expr, key) => `${expr} - '${key}'`, column);

/**
 * customers/redact: the customer's data is anonymised rather than deleted, so counts and reports
 * stay right (decision 0223). Their back-in-stock signups keep their variant, channel, dates and
 * status, lose contact (a placeholder unique per signup), customer id and first name, and one
 * still waiting is unsubscribed (nothing is sent to nobody); their reminder queue entries go.
 * Their preorder orders (those in orders_to_redact, and those of their customer id or e-mail) lose
 * e-mail, phone and customer id, their notifications the recipient (one not sent yet ends blocked:
 * no_recipient); the stored copies of their order payloads (the order mirror, the recorded
 * deliveries, the developer webhook events) lose the personal fields; the compliance deliveries
 * about them keep the customer's id only. Running it again changes nothing more.
 */
export async function applyCustomersRedact(db: Db, shopId: string, payload: unknown): Promise<void> {
  const request = customersRedactPayload.parse(payload);
  const match = customerMatchValues(shopId, request.customer);
  const orders = orderGids(request.orders_to_redact);
  await db.query(
    `with redacted as (
       update bis_signups s set contact = 'redacted:' || s.id, customer_id = null, first_name = null,
         status = case when s.status in ('waiting', 'pending') then 'unsubscribed' else s.status end,
         unsubscribed_at = case when s.status in ('waiting', 'pending') then coalesce(s.unsubscribed_at, now()) else s.unsubscribed_at end,
         updated_at = now()
       where ${CUSTOMER_MATCH.signup("s")}
       returning s.id
     )
     delete from bis_reminder_queue q using redacted r where q.signup_id = r.id`,
    match,
  );
  const { rows } = await db.query<{ id: string; platform_order_id: string }>(
    `update preorder_orders o set email = null, phone = null, customer_id = null, updated_at = now()
     where o.shop_id = $1 and (o.platform_order_id = any($5::text[]) or ${CUSTOMER_MATCH.order("o")})
     returning o.id, o.platform_order_id`,
    [...match, orders],
  );
  const orderIds = rows.map((r) => r.id);
  const allOrders = [...new Set([...orders, ...rows.map((r) => r.platform_order_id)])];
  await db.query(
    `update preorder_notifications set recipient = null,
       status = case when status = 'pending' then 'blocked' else status end,
       blocked_reason = case when status = 'pending' then 'no_recipient' else blocked_reason end, updated_at = now()
     where shop_id = $1 and order_id = any($2::uuid[])`,
    [shopId, orderIds],
  );
  await db.query(`update preorder_webhook_events set payload = payload - 'email' - 'phone' where shop_id = $1 and order_id = any($2::uuid[])`, [shopId, orderIds]);
  await db.query(
    `update platform_orders set payload = ${stripOrder("payload")}
     where shop_id = $1 and (id = any($2::text[]) or payload -> 'customer' ->> 'id' = $3)`,
    [shopId, allOrders, request.customer.id],
  );
  await db.query(
    `update webhook_deliveries set payload = ${stripOrder("payload")}
     where shop_id = $1 and topic like 'orders/%' and (payload ->> 'admin_graphql_api_id' = any($2::text[]) or payload -> 'customer' ->> 'id' = $3)`,
    [shopId, allOrders, request.customer.id],
  );
  await db.query(
    `update webhook_deliveries set payload = jsonb_set(payload, '{customer}', jsonb_build_object('id', payload -> 'customer' -> 'id'))
     where shop_id = $1 and topic like 'customers/%' and payload -> 'customer' ->> 'id' = $2`,
    [shopId, request.customer.id],
  );
}
