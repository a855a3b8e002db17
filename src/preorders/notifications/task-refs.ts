import { z } from "zod";
import { declareTask } from "../../core/tasks.ts";
import { MAX_SEND_RETRY_HOURS, sendAttemptsFor } from "../../messaging/retry.ts";

// Tasks of shop-wide preorder work that src/ queues (their runs: src/preorders/notifications/jobs/tasks.ts).

const delivery = z.object({ type: z.string(), date: z.string().nullable(), days: z.number().nullable() });
export type DeliverySnapshot = z.output<typeof delivery>;

/** One claimed notification (job key `preorders_notification_send:<id>`). */
export const notificationSendTask = declareTask({ name: "preorders_notification_send", payload: z.object({ notification_id: z.uuid() }) });

/** An offer's delivery changed: tell the customers of its open orders (one job per change). */
export const shippingDateChangeTask = declareTask({
  name: "preorders_shipping_date_change",
  payload: z.object({ shop_id: z.uuid(), offer_id: z.uuid(), change_id: z.uuid(), previous: delivery, current: delivery }),
});

/** The balance_due message of an order, at its time (job key `preorders_balance_due:<order id>`). */
export const balanceDueTask = declareTask({ name: "preorders_balance_due", payload: z.object({ shop_id: z.uuid(), order_id: z.uuid() }) });

/** The automatic balance charge of an order (job key `preorders_auto_collect:<order id>`). */
export const autoCollectTask = declareTask({
  name: "preorders_auto_collect",
  payload: z.object({ shop_id: z.uuid(), order_id: z.uuid(), trigger: z.enum(["due_date", "on_fulfillment"]) }),
});

/** The app's tags of an order pushed to the platform order (job key `preorders_order_tags:<order id>`). */
export const orderTagsTask = declareTask({ name: "preorders_order_tags", payload: z.object({ shop_id: z.uuid(), order_id: z.uuid() }) });

/**
 * The platform fulfillment holds of an order brought to what it should have (job key
 * `preorders_fulfillment_holds:<order id>`): held while the order of a hold offer is unreleased,
 * released once it is released (src/preorders/orders/fulfillment-holds.ts).
 */
export const fulfillmentHoldsTask = declareTask({ name: "preorders_fulfillment_holds", payload: z.object({ shop_id: z.uuid(), order_id: z.uuid() }) });

/**
 * The split of an order's preorder items for its offers' shipping.fulfillment.split (job key
 * `preorders_order_split:<order id>`): into their own fulfillment orders, or moved to new orders
 * (src/preorders/orders/splits.ts).
 */
export const orderSplitTask = declareTask({ name: "preorders_order_split", payload: z.object({ shop_id: z.uuid(), order_id: z.uuid() }) });

/** One developer webhook event delivered to the shop's endpoint (job key `preorders_developer_webhook:<event id>`). */
export const developerWebhookTask = declareTask({ name: "preorders_developer_webhook", payload: z.object({ event_id: z.uuid() }) });

/** Crontab: ledger rows left pending by a send job that is gone or ran out of attempts (recovery.ts). */
export const notificationRecoverTask = declareTask({
  name: "preorders_notification_recover",
  payload: z.object({ grace_seconds: z.number().min(0).optional() }).nullish(),
});

/**
 * The send job's max_attempts: enough for the longest SEND_RETRY_HOURS allowed (30 days). The
 * configured window ends the retries sooner: the attempt past it fails the notification with the
 * reason and returns (see sendNotification), so graphile-worker's backoff does the waiting.
 */
export const MAX_NOTIFICATION_ATTEMPTS = sendAttemptsFor(MAX_SEND_RETRY_HOURS);
/** Attempts of a webhook delivery (graphile-worker's backoff: about 20 minutes in all). */
export const MAX_WEBHOOK_ATTEMPTS = 8;
