import { PermanentJobFailure, defineTask } from "../../core/tasks.ts";
import { PlatformError } from "../../platform/errors.ts";
import { sendFlowTrigger } from "../../platform/operations/app.ts";
import { flowTriggerTask, shopsSending } from "../flow/enqueue.ts";
import { flowHandle } from "../flow/triggers.ts";

/**
 * `flow_trigger_send` {shop_id, trigger, key, payload}: one event to the platform's automation
 * (flowTriggerReceive with the trigger's handle). Skipped when the shop turned the switch off or
 * dropped the trigger since, or is no longer connected; the platform's refusal (a user error)
 * ends the job at once, anything else is thrown and retried with backoff.
 */
export default defineTask({
  ...flowTriggerTask,
  async run(ctx, { shop_id: shopId, trigger, key, payload }) {
    if (!(await shopsSending(ctx.pool, [shopId], trigger)).has(shopId)) {
      ctx.log.debug({ shopId, trigger, key }, "flow trigger skipped: no longer chosen");
      return;
    }
    const { rows } = await ctx.pool.query<{ connected: boolean }>("select platform_graphql_url is not null and platform_access_token is not null as connected from shops where id = $1", [
      shopId,
    ]);
    if (!rows[0]?.connected) {
      ctx.log.warn({ shopId, trigger, key }, "flow trigger skipped: the shop is not connected to the store platform");
      return;
    }
    const client = await ctx.platform.clientFor(ctx.pool, shopId);
    try {
      await sendFlowTrigger(client, flowHandle(trigger), payload, ctx.signal ? { signal: ctx.signal } : undefined);
    } catch (error) {
      if (error instanceof PlatformError && error.kind === "user_errors") throw new PermanentJobFailure(error.message);
      throw error;
    }
  },
});
