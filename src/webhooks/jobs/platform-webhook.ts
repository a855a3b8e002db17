import { defineTask } from "../../core/tasks.ts";
import { webhookTask } from "../intake.ts";
import { processWebhook } from "../process.ts";

/** Applies a recorded platform webhook delivery; graphile-worker retries a failure with backoff, except a payload that can never be applied (failed at once: src/webhooks/process.ts). */
export default defineTask({
  ...webhookTask,
  async run(ctx, { delivery_id: deliveryId }) {
    await processWebhook(ctx.pool, deliveryId);
  },
});
