import { z } from "zod";
import { type AnyAction, defineAction } from "../../../core/action.ts";
import { jobHandleOutput } from "../../../core/outputs.ts";
import { enqueueJob } from "../../../core/jobs.ts";
import { unique } from "../../../platform/operations/chunk.ts";
import { loadOrder } from "../model.ts";
import { tagList } from "./bulk.ts";
import { bulkSetTagsJob } from "../jobs/bulk.ts";

type Mode = "set" | "add" | "remove";

const DESCRIPTIONS: Record<Mode, string> = {
  set: "Replaces the order's tags on the platform with tags (an empty list removes them all): the tags the order has and the list lacks are removed, the others added (tagsAdd / tagsRemove), as a job.",
  add: "Adds tags to the order on the platform (tagsAdd: its other tags stay), as a job.",
  remove: "Removes tags from the order on the platform (tagsRemove: its other tags stay), as a job.",
};

const ALIASES: Record<Mode, string[]> = {
  set: ["replace the tags of a preorder order", "set tags on one preorder order"],
  add: ["add a tag to a preorder order", "tag one preorder order"],
  remove: ["remove a tag from a preorder order", "untag a preorder order"],
};

/**
 * One order's tags, pushed to the platform by the same job as bulk_set_tags (one order): the job's
 * result says tagged, skipped (already as asked) or refused (the platform's reason), and the
 * order's local tags follow what the platform accepted.
 */
function tagsAction(mode: Mode): AnyAction {
  return defineAction({
    name: `preorders.orders.${mode}_tags`,
    method: "POST",
    path: `/preorders/orders/{id}/${mode}_tags`,
    description: `${DESCRIPTIONS[mode]} Answers a job handle; the job's result has the order's outcome (tagged, skipped or refused with the reason), and GET /preorders/orders/{id} shows the tags once it is done.`,
    notes: [
      "tags: at most 250, each 1 to 255 characters after trimming.",
      ...(mode === "set" ? ["The difference is computed from the order's tags as last received from the platform."] : []),
      "Retried with backoff when the platform fails; a platform refusal refuses this order in the job's result.",
    ],
    aliases: ALIASES[mode],
    kind: "write",
    async: true,
    params: z.object({ id: z.string() }),
    input: z.strictObject({ tags: mode === "set" ? tagList : tagList.min(1) }),
    output: jobHandleOutput,
    async handler(ctx, { params, input }) {
      const { order } = await loadOrder(ctx.db, ctx.shopId, params.id);
      const wanted = unique(input.tags);
      const has = new Set(order.tags);
      const add = mode === "add" ? wanted : mode === "remove" ? [] : wanted.filter((t) => !has.has(t));
      const remove = mode === "add" ? [] : mode === "remove" ? wanted : order.tags.filter((t) => !wanted.includes(t));
      return enqueueJob(ctx.db, bulkSetTagsJob, { order_ids: [order.id], add, remove }, { shopId: ctx.shopId, total: 1 });
    },
  });
}

export const setOrderTags = tagsAction("set");
export const addOrderTags = tagsAction("add");
export const removeOrderTags = tagsAction("remove");
