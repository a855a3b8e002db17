import { z } from "zod";
import { defineAction } from "../../core/action.ts";
import { timestampOutput } from "../../core/outputs.ts";
import { PLANS, PLAN_NAMES, planUsage } from "../plans.ts";

const PLAN_LIST = PLAN_NAMES.map((p) => `${p} (${PLANS[p].monthly_alert_limit.toLocaleString("en")})`).join(", ");

const count = z.int().min(0);

export const getPlanUsage = defineAction({
  name: "account.plan_usage.get",
  method: "GET",
  path: "/account/plan_usage",
  description: `The shop's plan and this month's use of its back-in-stock message quota: plan (${PLAN_LIST} messages a month), monthly_alert_limit, period (the UTC calendar month: from inclusive, to exclusive), alerts_sent (messages sent this month, every stage and channel), in_flight (admitted by the quota and being sent now), remaining, blocked_by_plan_limit (messages refused this month because the quota was used up) and by_channel.`,
  notes: [
    "Sends over the quota are not sent: they are logged in GET /back_in_stock/notifications with status blocked and blocked_reason plan_limit, and that stage is not sent to that signup later.",
    "Refused and failed messages do not count; a message counts in the month it was sent.",
    "The plan is set by the operator (npm run cli -- plans set --shop ID --plan NAME [--limit N]); new shops start on growth.",
  ],
  aliases: ["read plan usage", "how many alerts are left this month", "show the monthly alert quota"],
  kind: "read",
  input: z.strictObject({}),
  output: z.strictObject({
    plan: z.enum(PLAN_NAMES),
    plan_title: z.string(),
    monthly_alert_limit: count.describe("messages the shop may send in a month: the plan's, or the operator's custom limit"),
    custom_limit: z.boolean().describe("true when monthly_alert_limit is a custom limit rather than the plan's"),
    period: z.strictObject({ from: timestampOutput, to: timestampOutput }),
    alerts_sent: count,
    in_flight: count.describe("messages admitted by the quota and being sent now"),
    remaining: count,
    blocked_by_plan_limit: count,
    by_channel: z.strictObject({ email: z.strictObject({ sent: count }), sms: z.strictObject({ sent: count }) }),
  }),
  async handler(ctx) {
    return planUsage(ctx.db, ctx.shopId);
  },
});
