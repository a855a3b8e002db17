import { runShippingDateChange } from "../delivery-change.ts";
import { sendNotification } from "../ledger.ts";
import { recoverNotifications } from "../recovery.ts";
import {
  autoCollectTask,
  balanceDueTask,
  developerWebhookTask,
  fulfillmentHoldsTask,
  notificationRecoverTask,
  notificationSendTask,
  orderSplitTask,
  orderTagsTask,
  shippingDateChangeTask,
} from "../task-refs.ts";
import { runAutoCollect, runBalanceDue, runOrderTags } from "../../orders/balance-jobs.ts";
import { runFulfillmentHolds } from "../../orders/fulfillment-holds.ts";
import { runOrderSplit } from "../../orders/splits.ts";
import { deliverWebhookEvent } from "../../settings/webhook-events.ts";
import { type AnyTaskDefinition, defineTask } from "../../../core/tasks.ts";

/** Shop-wide preorder work: notifications to customers, order tags, auto-collect, developer webhooks (thin: each calls into src/). */
export const preorderShopTasks: readonly AnyTaskDefinition[] = [
  defineTask({ ...notificationSendTask, run: (ctx, p) => sendNotification(ctx, p.notification_id) }),
  defineTask({ ...shippingDateChangeTask, run: (ctx, p) => runShippingDateChange(ctx, p) }),
  defineTask({ ...balanceDueTask, run: (ctx, p) => runBalanceDue(ctx, p) }),
  defineTask({ ...autoCollectTask, run: (ctx, p) => runAutoCollect(ctx, p) }),
  defineTask({ ...orderTagsTask, run: (ctx, p) => runOrderTags(ctx, p) }),
  defineTask({ ...fulfillmentHoldsTask, run: (ctx, p) => runFulfillmentHolds(ctx, p) }),
  defineTask({ ...orderSplitTask, run: (ctx, p) => runOrderSplit(ctx, p) }),
  defineTask({ ...developerWebhookTask, run: (ctx, p) => deliverWebhookEvent(ctx, p.event_id) }),
  defineTask({
    ...notificationRecoverTask,
    // notifications left pending by a send job that is gone or ran out of attempts
    cron: [{ match: "*/5 * * * *", options: { maxAttempts: 1, jobKey: notificationRecoverTask.name, jobKeyMode: "replace" }, payload: { grace_seconds: 300 } }],
    async run(ctx, p) {
      const result = await recoverNotifications(ctx, { graceSeconds: p?.grace_seconds });
      if (result.requeued + result.failed > 0) ctx.log.info({ task: notificationRecoverTask.name, ...result }, "recovered preorder notifications");
      return result;
    },
  }),
];
