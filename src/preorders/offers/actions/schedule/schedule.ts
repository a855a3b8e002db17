import { z } from "zod";
import { defineAction } from "../../../../core/action.ts";
import { timestampOutput } from "../../../../core/outputs.ts";
import { isoTimestamp } from "../../../../core/schemas.ts";
import { presentSchedule, readSchedule, clearSchedule, setSchedule } from "../../schedule.ts";
import { OFFERS_PATH, findOffer, offerParams } from "../../model.ts";
import { offerOutput } from "../../outputs.ts";
import { loadOfferView } from "../offers.ts";

const scheduleOutput = z
  .strictObject({
    enable_at: timestampOutput.nullable().describe("when the worker enables the offer (status active); null: not scheduled"),
    disable_at: timestampOutput.nullable().describe("when the worker disables the offer (status disabled); null: not scheduled"),
  })
  .describe("the offer's schedule; an edge is cleared once the worker has acted on it");

/** The full offer, as GET /preorders/offers/{id} answers it (its schedule included). */
export const offerWithScheduleOutput = offerOutput;

const scheduleInput = z
  .strictObject({
    enable_at: isoTimestamp.optional().describe("when to enable the offer: an ISO 8601 timestamp in the future"),
    disable_at: isoTimestamp.optional().describe("when to disable the offer: an ISO 8601 timestamp in the future, after enable_at"),
  })
  .superRefine((value, ctx) => {
    if (value.enable_at === undefined && value.disable_at === undefined) {
      ctx.addIssue({ code: "custom", path: ["enable_at"], message: "is required unless disable_at is given" });
      return;
    }
    const now = Date.now();
    for (const field of ["enable_at", "disable_at"] as const) {
      const at = value[field];
      if (at !== undefined && Date.parse(at) <= now) ctx.addIssue({ code: "custom", path: [field], message: "must be in the future" });
    }
    if (value.enable_at !== undefined && value.disable_at !== undefined && Date.parse(value.disable_at) <= Date.parse(value.enable_at)) {
      ctx.addIssue({ code: "custom", path: ["disable_at"], message: "must be after enable_at" });
    }
  });

function offerWithSchedule(db: Parameters<typeof loadOfferView>[0], shopId: string, id: string): Promise<Record<string, unknown>> {
  return loadOfferView(db, shopId, id);
}

export const scheduleOffer = defineAction({
  name: "preorders.offers.schedule",
  method: "POST",
  path: `${OFFERS_PATH}/{id}/schedule`,
  description:
    "Schedules the offer to be enabled (enable_at) and/or disabled (disable_at) by the worker at those times, as POST /preorders/offers/{id}/enable and /disable would (the platform sync follows). The body replaces the whole schedule: an edge left out is cleared. Answers the full offer with its schedule.",
  notes: [
    "At least one of enable_at and disable_at is required; each must be in the future, and disable_at after enable_at when both are given.",
    "Scheduling again replaces the earlier schedule and its jobs; POST /preorders/offers/{id}/unschedule clears it.",
    "When an edge's time comes, the offer's status changes only if it differs (enable and disable are idempotent) and the edge is cleared.",
    "Deleting the offer drops its schedule.",
  ],
  aliases: ["schedule an offer to turn on later", "set a launch date for a preorder offer", "schedule preorders to end at a date"],
  kind: "write",
  params: offerParams,
  input: scheduleInput,
  output: offerWithScheduleOutput,
  async handler(ctx, { params, input }) {
    const row = await findOffer(ctx.db, ctx.shopId, params.id, true);
    await setSchedule(ctx.db, ctx.shopId, row.id, {
      enable_at: input.enable_at === undefined ? null : new Date(input.enable_at),
      disable_at: input.disable_at === undefined ? null : new Date(input.disable_at),
    });
    return offerWithSchedule(ctx.db, ctx.shopId, row.id);
  },
});

export const unscheduleOffer = defineAction({
  name: "preorders.offers.unschedule",
  method: "POST",
  path: `${OFFERS_PATH}/{id}/unschedule`,
  description: "Clears the offer's schedule (both edges) and removes its pending jobs; its status stays as it is. Idempotent. Answers the full offer with its (empty) schedule.",
  aliases: ["cancel an offer schedule", "clear the scheduled enable and disable of an offer"],
  kind: "write",
  params: offerParams,
  input: z.strictObject({}),
  output: offerWithScheduleOutput,
  async handler(ctx, { params }) {
    const row = await findOffer(ctx.db, ctx.shopId, params.id, true);
    await clearSchedule(ctx.db, ctx.shopId, row.id);
    return offerWithSchedule(ctx.db, ctx.shopId, row.id);
  },
});

export const getOfferSchedule = defineAction({
  name: "preorders.offers.schedule.get",
  method: "GET",
  path: `${OFFERS_PATH}/{id}/schedule`,
  description: "The offer's schedule: { enable_at, disable_at }, ISO 8601 timestamps or null. An edge is cleared once the worker has acted on it.",
  aliases: ["read an offer schedule", "when will the offer be enabled"],
  kind: "read",
  params: offerParams,
  input: z.strictObject({}),
  output: scheduleOutput,
  async handler(ctx, { params }) {
    const row = await findOffer(ctx.db, ctx.shopId, params.id);
    return presentSchedule(await readSchedule(ctx.db, ctx.shopId, row.id));
  },
});
