import { z } from "zod";
import { type AnyAction, defineAction } from "../../../core/action.ts";
import { setStageSwitch, storedTemplateRows, upsertTemplate } from "../../../messaging/templates.ts";
import type { Db } from "../../../core/db.ts";
import { type Issue, unprocessable } from "../../../core/errors.ts";
import { locale, notBlank } from "../../../core/schemas.ts";
import { TEMPLATE_LIMITS, type TemplateKind } from "../../../messaging/render/limits.ts";
import { templateProblem as renderProblem } from "../../../messaging/render/render.ts";
import { DEFAULT_STAGE_ENABLED, type NotificationChannel, type NotificationStage, shippedTemplate, stageSchema } from "../templates.ts";
import { stageSample, stageVariables } from "../stages.ts";
import { unknownVariableIssue } from "../../../messaging/render/variables-check.ts";
import { fallbackLocales } from "../../../core/locales.ts";

const templateParams = z.object({ stage: stageSchema, locale });

const channelFields = {
  body: z.string(),
  customized: z.boolean().describe("true: the merchant's text for this locale; false: a shipped default"),
  default_locale: z.string().nullable().describe("the locale of the shipped default shown (null when customized)"),
};

const templateOutput = z.strictObject({
  stage: stageSchema,
  locale: z.string(),
  enabled: z.boolean().describe("the stage's switch, for every locale: false blocks its messages (logged blocked, stage_disabled)"),
  email: z.strictObject({ subject: z.string(), ...channelFields }),
  sms: z.strictObject(channelFields),
  variables: z.array(z.string()),
});

async function loadTemplate(db: Db, shopId: string, stage: NotificationStage, requested: string): Promise<z.output<typeof templateOutput>> {
  const { rows: shopRows } = await db.query<{ default_locale: string; enabled: boolean | null }>(
    `select s.default_locale, st.enabled from shops s
     left join message_stage_settings st on st.shop_id = s.id and st.area = 'preorders' and st.stage = $2 where s.id = $1`,
    [shopId, stage],
  );
  const shop = shopRows[0];
  if (!shop) throw new Error(`shop ${shopId} of an authenticated key is missing`);
  const rows = await storedTemplateRows(db, shopId, "preorders", stage, requested);
  const fallbackLocale = fallbackLocales(requested, shop.default_locale).find((c) => shippedTemplate(stage, c) !== undefined) ?? "en";
  const defaults = shippedTemplate(stage, fallbackLocale);
  if (!defaults) throw new Error(`no default ${stage} template`);
  const email = rows.find((r) => r.channel === "email");
  const sms = rows.find((r) => r.channel === "sms");
  return {
    stage,
    locale: requested,
    enabled: shop.enabled ?? DEFAULT_STAGE_ENABLED[stage],
    email: email
      ? { subject: email.subject ?? defaults.email.subject, body: email.body, customized: true, default_locale: null }
      : { ...defaults.email, customized: false, default_locale: fallbackLocale },
    sms: sms ? { body: sms.body, customized: true, default_locale: null } : { ...defaults.sms, customized: false, default_locale: fallbackLocale },
    variables: stageVariables(stage),
  };
}

const STAGES_TEXT = "confirmation (sent when a preorder order arrives), shipping_date_change (sent to the customers of an offer's open orders when its delivery changes), balance_due (sent notifications.balance_due.days_before days before a remaining balance is due or auto-collected)";

const getPreorderTemplate = defineAction({
  name: "preorders.templates.get",
  method: "GET",
  path: "/preorders/templates/{stage}/{locale}",
  aliases: ["read a preorder notification template", "show the preorder confirmation email", "show the preorder balance due message"],
  description: `The localized template of a preorder notification stage: ${STAGES_TEXT}; with the stage's enabled switch, its e-mail (subject, body) and text message (body). A locale without its own text shows the shipped default (en, fr, de, es) of its language, else of the shop's default locale, else en; customized tells which.`,
  kind: "read",
  params: templateParams,
  input: z.strictObject({}),
  output: templateOutput,
  async handler(ctx, { params }) {
    return loadTemplate(ctx.db, ctx.shopId, params.stage, params.locale);
  },
});

const templateSource = (max: number) => notBlank(z.string().max(max));

/** The 422 issue of a template that does not render with the stage's sample values within the limits, or uses a variable the stage does not declare. */
async function templateProblem(stage: NotificationStage, field: string, source: string, kind: TemplateKind, shopId: string): Promise<Issue | undefined> {
  return (await renderProblem(field, source, kind, stageSample(stage), shopId)) ?? unknownVariableIssue(field, source, stageVariables(stage));
}

const patchPreorderTemplate = defineAction({
  name: "preorders.templates.update",
  method: "PATCH",
  path: "/preorders/templates/{stage}/{locale}",
  aliases: ["change a preorder notification template", "edit the preorder shipping date change email", "turn off preorder confirmation messages"],
  description: `Changes a preorder notification stage's template for one locale (deep partial): enabled (the stage's switch, for every locale), email.subject, email.body, sms.body. Stages: ${STAGES_TEXT}. Texts are Liquid templates (no include, render or layout); a template that does not render with sample values, takes more than ${TEMPLATE_LIMITS.renderMs} ms or allocates more than ${TEMPLATE_LIMITS.memory} characters or list items is refused with 422. A template that uses a variable its stage does not declare is refused with 422 naming it (names the template assigns, captures or loops over are its own). Variables: ${stageVariables("shipping_date_change").join(", ")} (previous_delivery.* in shipping_date_change only). Answers the template.`,
  notes: [
    "Dates (delivery.date, balance.due_date) are YYYY-MM-DD; delivery.days is null unless the offer ships within a number of days.",
    "E-mails are sent from the shop's sender identity (GET /account/sending: From name and address, Reply-To) and wrapped in its e-mail layout (GET /account/templates/email_layout), as back-in-stock alerts; text messages from its SMS sender.",
    "email.body is the part inside the layout; a stored layout that no longer renders fails each e-mail with the reason (text messages still go).",
  ],
  kind: "write",
  params: templateParams,
  input: z.strictObject({
    enabled: z.boolean().optional(),
    email: z.strictObject({ subject: templateSource(500).optional(), body: templateSource(TEMPLATE_LIMITS.parseLength).optional() }).optional(),
    sms: z.strictObject({ body: templateSource(1600).optional() }).optional(),
  }),
  output: templateOutput,
  async handler(ctx, { params, input }) {
    const sources: [string, string | undefined, TemplateKind][] = [
      ["email.subject", input.email?.subject, "text"],
      ["email.body", input.email?.body, "html"],
      ["sms.body", input.sms?.body, "text"],
    ];
    const { stage, locale: requested } = params;
    const problems: Issue[] = [];
    for (const [field, source, kind] of sources) {
      const problem = source === undefined ? undefined : await templateProblem(stage, field, source, kind, ctx.shopId);
      if (problem) problems.push(problem);
    }
    if (problems.length > 0) throw unprocessable(problems);
    if (input.enabled !== undefined) {
      await setStageSwitch(ctx.db, ctx.shopId, "preorders", stage, input.enabled);
    }
    const current = await loadTemplate(ctx.db, ctx.shopId, stage, requested);
    const upsert = (channel: NotificationChannel, subject: string | null, body: string) =>
      upsertTemplate(ctx.db, { shopId: ctx.shopId, area: "preorders", stage, locale: requested, channel }, { subject, body });
    if (input.email?.subject !== undefined || input.email?.body !== undefined) {
      await upsert("email", input.email.subject ?? current.email.subject, input.email.body ?? current.email.body);
    }
    const smsBody = input.sms?.body;
    if (smsBody !== undefined) await upsert("sms", null, smsBody);
    return loadTemplate(ctx.db, ctx.shopId, stage, requested);
  },
});

export const PREORDER_TEMPLATE_ACTIONS: readonly AnyAction[] = [getPreorderTemplate, patchPreorderTemplate];
