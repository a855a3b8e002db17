import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import { storedStageSwitches } from "../../../messaging/templates.ts";
import type { Db } from "../../../core/db.ts";
import { assertCatalogMirrored } from "../../../catalog/readiness.ts";
import { type Issue, fieldIssue, unprocessable } from "../../../core/errors.ts";
import { locale } from "../../../core/schemas.ts";
import { DEFAULT_STAGE_ENABLED } from "../../templates/default-templates.ts";
import {
  MARKET_NOT_IN_SHOP_ISSUE,
  SIGNUP_CHANNELS,
  SIGNUP_QUANTITY_MAX,
  type SignupRow,
  VARIANT_NOT_IN_SHOP_ISSUE,
  customerIdSchema,
  findVariant,
  marketExists,
  marketIdSchema,
  signupEmail as email,
  signupPhone as phone,
  signupQuantity,
  variantIdSchema,
} from "../model.ts";
import { loadBackInStockSettings } from "../../settings/settings.ts";
import { thankYouTask } from "../../alerts/deps.ts";
import { enqueue } from "../../../core/tasks.ts";
import { enqueueFlowTriggers, legacyId } from "../../../providers/flow/enqueue.ts";
import { enqueueSignupSync } from "../../../providers/sync/enqueue.ts";
import { presentSignupsWithSync, signupWithSyncOutput } from "./output.ts";

const input = z.strictObject({
  variant_id: variantIdSchema,
  channel: z.enum(SIGNUP_CHANNELS),
  email: email.optional().describe("Required for channel email; stored lower-cased"),
  phone: phone.optional().describe("Required for channel sms; E.164"),
  locale: locale.optional().describe("Language of the messages; default the shop's default_locale"),
  consent: z.boolean().optional().describe("The customer agreed to be contacted; required (true) when compliance.opt_in_required is on"),
  first_name: z.string().trim().max(100).optional(),
  customer_id: customerIdSchema.optional().describe("The platform customer, when known: tagged when tagging is on"),
  quantity: signupQuantity.optional().describe(`Units the customer wants, 1-${SIGNUP_QUANTITY_MAX}; default 1 (a repeat keeps the stored one unless given)`),
  market_id: marketIdSchema
    .nullable()
    .optional()
    .describe("The market the customer signs up in (numeric id or gid, GET /account/markets); the alert waits for stock at a location of that market. null or absent: none (a repeat keeps the stored one unless given; null clears it)"),
});

/** Queues the signup_thank_you message on the write's transaction, coalesced per signup. */
async function queueThankYou(db: Db, signupId: string): Promise<void> {
  await enqueue(db, thankYouTask, { signup_id: signupId }, { maxAttempts: 10, jobKey: `${thankYouTask.name}:${signupId}` });
}

async function stageEnabled(db: Db, shopId: string, stage: "signup_thank_you"): Promise<boolean> {
  return (await storedStageSwitches(db, shopId, "back_in_stock")).get(stage) ?? DEFAULT_STAGE_ENABLED[stage];
}

export const createSignup = defineAction({
  name: "back_in_stock.signups.create",
  method: "POST",
  path: "/back_in_stock/signups",
  description:
    "Signs a customer up for a variant's back-in-stock alert. variant_id: the numeric id or the gid; it must be a mirrored variant of this shop (422 `variant_id must be a variant of this shop`); the gid is stored. channel: email (needs email, validated and lower-cased) or sms (needs phone in E.164, +[1-9] and up to 15 digits; spaces, dots, dashes and brackets are dropped first); the channel must be on in the settings. locale defaults to the shop's default_locale. consent must be true when compliance.opt_in_required is on. quantity: the units wanted, an integer from 1 to " + String(SIGNUP_QUANTITY_MAX) + " (default 1), summed as units_wanted in the demand reads. market_id: the market the customer signs up in (numeric id or gid of GET /account/markets; 422 `market_id must be a market of this shop` otherwise; null or absent: none); its alert waits until the variant is in stock at a location of that market (decision 0246). " +
    "The same shop, variant, channel and contact is the same signup: a repeat answers that signup (no duplicate), filling in first_name, customer_id, locale, quantity and market_id when given and recording consent: true; a repeat with consent: true resumes an unsubscribed signup (status waiting, or notified/converted if it had already been alerted or bought: each stage is sent at most once, ever); without consent it stays unsubscribed. " +
    "A new or resumed signup queues, in the same transaction, its sync to every e-mail provider whose sync is on (GET /account/integrations; e-mail signups only), the customer tag on the platform (when tagging is on and customer_id is known) and the signup_thank_you message (when that stage is enabled). Answers 202 with the signup and its sync state.",
  aliases: ["sign a customer up for a back in stock alert", "add a back in stock signup", "notify me when a variant is back in stock"],
  notes: [
    "Repeating a signup never creates a duplicate: it answers the existing one.",
    "Each sync target (email_provider_1..3, commerce_platform) is one background job retried with backoff for about four days, so a provider outage loses no signup; its state is the signup's sync field.",
    "A text-message signup is not sent to the e-mail providers.",
  ],
  kind: "write",
  output: signupWithSyncOutput,
  input,
  async handler(ctx, { input: body }) {
    const settings = await loadBackInStockSettings(ctx.db, ctx.shopId);
    const problems: Issue[] = [];
    const variant = await findVariant(ctx.db, ctx.shopId, body.variant_id);
    if (!variant) {
      await assertCatalogMirrored(ctx.db, ctx.shopId);
      problems.push(VARIANT_NOT_IN_SHOP_ISSUE);
    }
    if (!settings.channels[body.channel].enabled) problems.push(fieldIssue("channel", `${body.channel} is turned off in this shop's back-in-stock settings`));
    const [field, other] = body.channel === "email" ? (["email", "phone"] as const) : (["phone", "email"] as const);
    if (body[field] === undefined) problems.push(fieldIssue(field, "is required"));
    if (body[other] !== undefined) problems.push(fieldIssue(other, `is not allowed with channel ${body.channel}`));
    if (settings.compliance.opt_in_required && body.consent !== true) problems.push(fieldIssue("consent", "must be true"));
    if (typeof body.market_id === "string" && !(await marketExists(ctx.db, ctx.shopId, body.market_id))) problems.push(MARKET_NOT_IN_SHOP_ISSUE);
    const contact = body[field];
    if (problems.length > 0 || !variant || contact === undefined) throw unprocessable(problems);

    const { rows: shops } = await ctx.db.query<{ default_locale: string }>("select default_locale from shops where id = $1", [ctx.shopId]);
    const signupLocale = body.locale ?? shops[0]?.default_locale ?? "en";
    const key = [ctx.shopId, variant.id, body.channel, contact];

    let row: SignupRow | undefined;
    let fresh = false;
    let resumed = false;
    let customerAdded = false;
    for (let attempt = 0; !row && attempt < 2; attempt++) {
      const { rows: existing } = await ctx.db.query<SignupRow>(
        "select * from bis_signups where shop_id = $1 and variant_id = $2 and channel = $3 and contact = $4 for update",
        key,
      );
      const current = existing[0];
      if (current) {
        resumed = current.status === "unsubscribed" && body.consent === true;
        customerAdded = current.customer_id === null && body.customer_id !== undefined;
        const { rows } = await ctx.db.query<SignupRow>(
          `update bis_signups set
             first_name = coalesce($2, first_name), customer_id = coalesce($3, customer_id), locale = coalesce($4, locale),
             consent = consent or $5,
             quantity = coalesce($7, quantity), market_id = case when $8 then $9 else market_id end,
             status = case when $6 then (case when converted_at is not null then 'converted'
                                              when notified_at is not null then 'notified' else 'waiting' end)
                      else status end,
             unsubscribed_at = case when $6 then null else unsubscribed_at end,
             updated_at = now()
           where id = $1 returning *`,
          [
            current.id,
            body.first_name ?? null,
            body.customer_id ?? null,
            body.locale ?? null,
            body.consent === true,
            resumed,
            body.quantity ?? null,
            body.market_id !== undefined,
            body.market_id ?? null,
          ],
        );
        row = rows[0];
      } else {
        // A concurrent first signup for the same contact wins the unique key; the next pass then finds it.
        const { rows } = await ctx.db.query<SignupRow>(
          `insert into bis_signups (shop_id, variant_id, product_id, channel, contact, locale, consent, customer_id, first_name, quantity, market_id)
           values ($1, $2, $5, $3, $4, $6, $7, $8, $9, $10, $11)
           on conflict (shop_id, variant_id, channel, contact) do nothing
           returning *`,
          [...key, variant.product_id, signupLocale, body.consent ?? false, body.customer_id ?? null, body.first_name ?? null, body.quantity ?? 1, body.market_id ?? null],
        );
        row = rows[0];
        fresh = row !== undefined;
      }
    }
    if (!row) throw new Error("signup upsert returned no row");

    if (row.status !== "unsubscribed") {
      await enqueueSignupSync(ctx.db, row, { providers: fresh || resumed, platformTag: fresh || resumed || customerAdded });
    }
    if (fresh) {
      await enqueueFlowTriggers(ctx.db, [
        {
          shopId: ctx.shopId,
          trigger: "back_in_stock_signup_created",
          key: row.id,
          payload: {
            customer_id: legacyId(row.customer_id),
            product_id: legacyId(row.product_id),
            "Signup ID": row.id,
            "Variant ID": legacyId(row.variant_id),
            Channel: row.channel,
          },
        },
      ]);
    }
    if ((fresh || resumed) && (await stageEnabled(ctx.db, ctx.shopId, "signup_thank_you"))) {
      await queueThankYou(ctx.db, row.id);
    }
    const [answer] = await presentSignupsWithSync(ctx.db, [row]);
    return answer;
  },
});
