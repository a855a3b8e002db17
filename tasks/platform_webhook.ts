import { defineTask } from "../src/core/tasks.ts";
import { webhookTask } from "../src/webhooks/intake.ts";
import { processWebhook } from "../src/webhooks/process.ts";

/** Applies a recorded platform webhook delivery; graphile-worker retries it with backoff. */
export default defineTask({
  ...webhookTask,
  async run(ctx, { delivery_id: deliveryId }) {
    await processWebhook(ctx.pool, deliveryId);
  },
});
