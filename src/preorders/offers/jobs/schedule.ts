import { offerScheduleTask, runScheduleEdge } from "../schedule.ts";
import { type AnyTaskDefinition, defineTask } from "../../../core/tasks.ts";

/** graphile-worker task `preorders_offer_schedule`: enables or disables an offer at its scheduled time (a throw is retried with backoff). */
const offerSchedule = defineTask({
  ...offerScheduleTask,
  async run(ctx, payload) {
    const outcome = await runScheduleEdge(ctx.pool, payload);
    ctx.log.info({ shopId: payload.shop_id, offerId: payload.offer_id, edge: payload.edge, ...outcome }, "offer schedule");
  },
});

export const preorderScheduleTasks: readonly AnyTaskDefinition[] = [offerSchedule];
