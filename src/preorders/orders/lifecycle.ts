import type { Db } from "../../core/db.ts";
import { enqueue } from "../../core/tasks.ts";
import { enqueueFlowTriggers, legacyId } from "../../providers/flow/enqueue.ts";
import { checkoutGroup } from "../offers/groups/checkout.ts";
import { paymentsGroup } from "../offers/groups/plan-groups.ts";
import { claimNotifications } from "../notifications/ledger.ts";
import { autoCollectTask, balanceDueTask, orderTagsTask } from "../notifications/task-refs.ts";
import { loadPreorderSettings } from "../settings/settings.ts";
import type { WebhookTopic } from "../settings/developer.ts";
import { recordWebhookEvent } from "../settings/webhook-events.ts";
import { offerHold, queueFulfillmentHolds } from "./fulfillment-holds.ts";
import type { OrderStatus } from "./model.ts";
import { offerSplit } from "./split-record.ts";
import { requestOrderSplit } from "./splits.ts";
import { type RuleBreak, findRuleBreaks, ruleBreakTags } from "./rule-breaks.ts";

/**
 * What a preorder order's arrival or change sets off, in the transaction that applied it
 * (src/preorders/orders/ingest.ts): the app's order tags (stored, and pushed to the platform by a
 * job), the confirmation message, the balance's due date with its auto-collect charge and
 * balance_due message (jobs at their time), the charge on fulfillment, the offers' rules a new
 * order broke (rule-breaks.ts: recorded, tagged, and sent as an event), the platform fulfillment
 * holds of a new order of an offer with shipping.fulfillment.hold (fulfillment-holds.ts, a job),
 * and developer webhook events. Every job is keyed per order, so applying the same order again queues nothing twice.
 */

interface AppliedOrder {
  id: string;
  status: OrderStatus;
  total_outstanding: string;
  platform_created_at: Date;
  tags: string[];
  app_tags: string[];
  balance_due_at: Date | null;
  auto_collect: string | null;
  name: string | null;
  platform_order_id: string;
  email: string | null;
  customer_id: string | null;
  currency: string;
  total_price: string;
  source_name: string | null;
}

interface OfferFacts {
  id: string;
  settings: Record<string, unknown>;
  /** A variant of the offer has its own per-order max (the order rules then read the overrides). */
  variant_max: boolean;
}

const DAY_MS = 86_400_000;
const ORDER_TAG_ATTEMPTS = 10;

/** `before`: the order's status before this change, or null when the order is new. */
export async function onOrderApplied(db: Db, shopId: string, orderId: string, before: OrderStatus | null): Promise<void> {
  const { rows } = await db.query<AppliedOrder>(
    `select id, status, total_outstanding::text, platform_created_at, tags, app_tags, balance_due_at, auto_collect, name, platform_order_id,
            email, customer_id, currency, total_price::text, source_name
     from preorder_orders where id = $1`,
    [orderId],
  );
  const order = rows[0];
  if (!order) return;
  const { rows: offers } = await db.query<OfferFacts>(
    `select po.id, po.settings,
            exists (select 1 from preorder_offer_variant_overrides v where v.offer_id = po.id and v.max_count is not null) as variant_max
     from preorder_offers po
     where po.id in (select l.offer_id from preorder_order_lines l where l.order_id = $1 and l.offer_id is not null)
     order by (select min(l.platform_line_id) from preorder_order_lines l where l.order_id = $1 and l.offer_id = po.id)`,
    [orderId],
  );
  const settings = await loadPreorderSettings(db, shopId);
  const live = order.status !== "cancelled" && order.status !== "refunded";

  // Rules are checked once, when the order first arrives: a later change of the offer's limits does not re-judge it.
  const breaks = before === null && live ? await findRuleBreaks(db, shopId, order, offers) : [];
  if (breaks.length > 0) await db.query("update preorder_orders set rule_breaks = $2 where id = $1", [order.id, JSON.stringify(breaks)]);
  // A split offer's items are split once, when the order first arrives (by the split job, or by the split-order app asked by a tag).
  const splitTags = before === null && live ? await requestOrderSplit(db, shopId, order.id, offers) : [];
  await applyOrderTags(db, shopId, order, offers, [...settings.orders.tags, ...ruleBreakTags(breaks), ...splitTags]);
  // A split offer's hold_fulfillments is held by the hold job once the split job has split (decision 0204).
  if (before === null && live && offers.some((offer) => offerHold(offer.settings).hold && offerSplit(offer.settings) === null)) await queueFulfillmentHolds(db, shopId, order.id);
  if (before === null && live) await claimNotifications(db, { shopId, stage: "confirmation", eventKey: "" }, [order.id], offers[0]?.id ?? null);
  if (live) await scheduleBalance(db, shopId, order, offers, settings.notifications.balance_due.days_before);
  if (order.status === "fulfilled" && before !== "fulfilled" && order.auto_collect === "on_fulfillment" && Number(order.total_outstanding) > 0) {
    await enqueue(db, autoCollectTask, { shop_id: shopId, order_id: order.id, trigger: "on_fulfillment" }, { jobKey: `${autoCollectTask.name}:${order.id}` });
  }
  await webhookEvents(db, shopId, order, before, offers, breaks);
  if (before === null && live) {
    await enqueueFlowTriggers(db, [
      {
        shopId,
        trigger: "preorder_order_placed",
        key: order.id,
        payload: {
          order_id: legacyId(order.platform_order_id),
          customer_id: legacyId(order.customer_id),
          "Order name": order.name,
          "Offer IDs": offers.map((o) => o.id).join(","),
          "Total outstanding": order.total_outstanding,
        },
      },
    ]);
  }
}

/** Offers' checkout.order_tags, the shop's orders.tags and the rules' tags that the order does not carry yet: stored, and pushed by a job. */
async function applyOrderTags(db: Db, shopId: string, order: AppliedOrder, offers: readonly OfferFacts[], otherTags: readonly string[]): Promise<void> {
  const wanted = new Set<string>(otherTags);
  for (const offer of offers) for (const tag of checkoutGroup.schema.parse(offer.settings.checkout ?? {}).order_tags.tags) wanted.add(tag);
  const missing = [...wanted].filter((tag) => !order.app_tags.includes(tag));
  if (missing.length === 0) return;
  await db.query(
    `update preorder_orders set app_tags = app_tags || $2::text[],
       tags = tags || array(select t from unnest($2::text[]) t where t <> all(tags)), updated_at = now()
     where id = $1`,
    [order.id, missing],
  );
  await enqueue(db, orderTagsTask, { shop_id: shopId, order_id: order.id }, { jobKey: `${orderTagsTask.name}:${order.id}`, maxAttempts: ORDER_TAG_ATTEMPTS });
}

/**
 * The first time an order shows a balance: its due date from the (first) offer's
 * payments.remaining_balance.due, how it is auto-collected, the charge at the due date when
 * auto_collect is on, and the balance_due message `days_before` it.
 */
async function scheduleBalance(db: Db, shopId: string, order: AppliedOrder, offers: readonly OfferFacts[], daysBefore: number): Promise<void> {
  if (order.balance_due_at !== null || Number(order.total_outstanding) <= 0) return;
  const offer = offers[0];
  if (!offer) return;
  const { remaining_balance: balance } = paymentsGroup.schema.parse(offer.settings.payments ?? {});
  const due =
    balance.due.type === "on_date" && balance.due.date !== null
      ? new Date(balance.due.date)
      : new Date(order.platform_created_at.getTime() + (balance.due.days ?? 0) * DAY_MS);
  const mode = balance.auto_collect ? "due_date" : balance.auto_collect_on_fulfillment ? "on_fulfillment" : null;
  await db.query("update preorder_orders set balance_due_at = $2, auto_collect = $3, updated_at = now() where id = $1", [order.id, due, mode]);
  if (mode === "due_date") {
    await enqueue(db, autoCollectTask, { shop_id: shopId, order_id: order.id, trigger: "due_date" }, { jobKey: `${autoCollectTask.name}:${order.id}`, runAt: due });
  }
  await enqueue(db, balanceDueTask, { shop_id: shopId, order_id: order.id }, { jobKey: `${balanceDueTask.name}:${order.id}`, runAt: new Date(due.getTime() - daysBefore * DAY_MS) });
}

function transitions(before: OrderStatus | null, now: OrderStatus): WebhookTopic[] {
  const topics: WebhookTopic[] = [];
  if (before === null) topics.push("preorder_order.created");
  if (now === "balance_collected" && before !== "balance_collected" && before !== null) topics.push("preorder_order.balance_collected");
  if (now === "fulfilled" && before !== "fulfilled") topics.push("preorder_order.fulfilled");
  if (now === "cancelled" && before !== "cancelled") topics.push("preorder_order.cancelled");
  return topics;
}

async function webhookEvents(db: Db, shopId: string, order: AppliedOrder, before: OrderStatus | null, offers: readonly OfferFacts[], breaks: readonly RuleBreak[]): Promise<void> {
  const topics = transitions(before, order.status);
  if (breaks.length > 0) topics.push("preorder_order.rules_broken");
  if (topics.length === 0) return;
  const data = {
    order_id: order.id,
    platform_order_id: order.platform_order_id,
    name: order.name,
    status: order.status,
    previous_status: before,
    email: order.email,
    currency: order.currency,
    total_price: order.total_price,
    total_outstanding: order.total_outstanding,
    offer_ids: offers.map((o) => o.id),
  };
  for (const topic of topics) await recordWebhookEvent(db, shopId, topic, order.id, topic === "preorder_order.rules_broken" ? { ...data, rule_breaks: breaks } : data);
}
