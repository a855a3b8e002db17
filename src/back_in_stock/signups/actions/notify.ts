import { z } from "zod";
import { BLOCKED_REASON_TEXT } from "../../../messaging/blocked.ts";
import { defineAction } from "../../../core/action.ts";
import { conflict } from "../../../core/errors.ts";
import { SIGNUP_CHANNELS } from "../model.ts";
import { SIGNUP_RESOURCE, loadSignup } from "../model.ts";
import { loadBackInStockSettings } from "../../settings/settings.ts";
import { blockedReason, claimStage, logRefusal, queueSend, reclaimFailed } from "../../alerts/ledger.ts";
import { stageSwitches } from "../../templates/render.ts";
import { sendAttemptsFor } from "../../../messaging/retry.ts";


export const notifySignup = defineAction({
  name: "back_in_stock.signups.notify",
  aliases: ["send a back in stock alert to one customer now", "notify a back in stock signup"],
  notes: [
    "The send itself runs in the background; GET /back_in_stock/notifications?signup_id=<id> shows its outcome.",
    "A signup whose alert failed (status failed: the server refused it for good, or it was still failing after SEND_RETRY_HOURS of retries, or it was refused at send) is sent again, with the same message id.",
    "A failure that may pass (a server down, SMTP 4xx, a provider's 429 or 5xx) is retried for 24 hours by default; meanwhile the signup reads pending with its last_error.",
  ],
  output: z.strictObject({
    message_id: z.string().describe("the ledger row the message id derives from"),
    signup_id: z.string(),
    stage: z.literal("initial"),
    channel: z.enum(SIGNUP_CHANNELS),
    status: z.literal("pending").describe("queued for sending"),
    resent: z.boolean().describe("true when this sends again an alert that had failed"),
  }),
  method: "POST",
  path: "/back_in_stock/signups/{id}/notify",
  description:
    "Sends the signup its back-in-stock alert (stage initial) now, on demand, whatever the stock and the batching: the merchant's call. The ledger holds: each signup gets each stage at most once, ever, so a signup that already had its initial alert (by a run or an earlier notify) is 409. A signup that may not be sent to (unsubscribed, its channel off, the initial stage off, consent missing while opt-in is required) is 409 with the reason, and the refusal is in the notifications log (status blocked). Otherwise the message is claimed in the ledger, the signup becomes pending and the send is queued: answers 202 with the message: message_id (the ledger id the message id derives from), signup_id, stage, channel, status pending, resent. The signup becomes notified once the server accepts the alert. An alert that failed is sent again (resent true). The outcome (sent, failed with its reason, or blocked) is in GET /back_in_stock/notifications.",
  kind: "write",
  params: z.object({ id: z.string() }),
  input: z.strictObject({}),
  async handler(ctx, { params }) {
    // Not locked: the refusal is logged on another connection, whose foreign key check would wait
    // for this transaction's row lock. The ledger's unique (signup, stage) is what guards the send.
    const signup = await loadSignup(ctx.db, ctx.shopId, params.id);
    const { rows: existing } = await ctx.db.query<{ id: string; status: string }>("select id, status from bis_ledger where signup_id = $1 and stage = 'initial'", [
      signup.id,
    ]);
    const previous = existing[0];
    if (previous && previous.status !== "failed" && previous.status !== "blocked") {
      throw conflict(`${SIGNUP_RESOURCE} ${signup.id} already had its initial alert (message ${previous.id}, ${previous.status})`);
    }
    const [settings, switches] = await Promise.all([loadBackInStockSettings(ctx.db, ctx.shopId), stageSwitches(ctx.db, ctx.shopId)]);
    const reason = blockedReason(signup, "initial", settings, switches);
    if (reason) {
      // Outside the request's transaction: the 409 rolls that back, the log keeps the refusal.
      await logRefusal(ctx.pool, { shopId: ctx.shopId, signupId: signup.id, variantId: signup.variant_id, stage: "initial", channel: signup.channel, reason });
      throw conflict(`${SIGNUP_RESOURCE} ${signup.id} was not notified: ${BLOCKED_REASON_TEXT[reason]} (${reason})`);
    }
    const [claimed] = previous
      ? await reclaimFailed(ctx.db, ctx.shopId, [signup.id], "initial")
      : await claimStage(ctx.db, ctx.shopId, [signup.id], "initial");
    if (!claimed) throw conflict(`${SIGNUP_RESOURCE} ${signup.id} already had its initial alert`);
    await queueSend(ctx.db, claimed.id, { maxAttempts: sendAttemptsFor(ctx.config.SEND_RETRY_HOURS) });
    return { message_id: claimed.id, signup_id: signup.id, stage: "initial", channel: signup.channel, status: "pending", resent: previous !== undefined };
  },
});
