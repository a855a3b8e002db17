import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import { setStageSwitch, storedTemplateRows, upsertTemplate } from "../../../messaging/templates.ts";
import type { Db } from "../../../core/db.ts";
import { fallbackLocales } from "../../../core/locales.ts";
import { type Issue, unprocessable } from "../../../core/errors.ts";
import { locale, notBlank } from "../../../core/schemas.ts";
import { SIGNUP_CHANNELS } from "../../signups/model.ts";
import { type Channel, DEFAULT_STAGE_ENABLED, DEFAULT_TEMPLATES, STAGES, type Stage } from "../default-templates.ts";
import { stageSample, stageVariables } from "../stages.ts";
import { unknownVariableIssue } from "../../../messaging/render/variables-check.ts";
import { TEMPLATE_LIMITS, type TemplateKind } from "../../../messaging/render/limits.ts";
import { templateProblem } from "../../../messaging/render/render.ts";

/** The spec accepts 0 and 1 for the first two stages. */
const STAGE_ALIASES: Record<string, Stage> = { "0": "initial", "1": "reminder" };

export const templateParams = z.object({
  // A literal list, not an enum: it keeps the stage names first in messages and the schema.
  stage: z.literal([...STAGES, "0", "1"]).transform((s): Stage => STAGE_ALIASES[s] ?? (s as Stage)),
  locale,
});

interface OverrideRow {
  channel: Channel;
  subject: string | null;
  body: string;
  updated_at: Date;
}

/** The locale whose shipped default applies. */
function defaultLocaleFor(stage: Stage, requested: string, shopDefault: string): string {
  return fallbackLocales(requested, shopDefault).find((c) => DEFAULT_TEMPLATES[stage][c] !== undefined) ?? "en";
}

const sourceOutput = {
  customized: z.boolean().describe("true: the shop's own text for this locale; false: a shipped default"),
  default_locale: z.string().nullable().describe("the locale of the shipped default shown; null when customized"),
};

const templateOutput = z.strictObject({
  stage: z.enum(STAGES),
  locale: z.string(),
  enabled: z.boolean().describe("the stage's on/off switch (for every locale)"),
  email: z.strictObject({ subject: z.string(), body: z.string().describe("Liquid, HTML"), ...sourceOutput }),
  sms: z.strictObject({ body: z.string().describe("Liquid, plain text"), ...sourceOutput }),
  variables: z.array(z.string()).describe("the variables a template may use"),
});

/** The stage's template for a locale as GET answers it: the shop's own texts, else the shipped default of the first fallback locale. */
export async function loadTemplate(db: Db, shopId: string, stage: Stage, requested: string): Promise<z.output<typeof templateOutput>> {
  const { rows: shopRows } = await db.query<{ default_locale: string; enabled: boolean | null }>(
    `select s.default_locale, st.enabled
     from shops s left join message_stage_settings st on st.shop_id = s.id and st.area = 'back_in_stock' and st.stage = $2
     where s.id = $1`,
    [shopId, stage],
  );
  const shop = shopRows[0];
  if (!shop) throw new Error(`shop ${shopId} of an authenticated key is missing`);
  const overrides: OverrideRow[] = await storedTemplateRows(db, shopId, "back_in_stock", stage, requested);
  const fallbackLocale = defaultLocaleFor(stage, requested, shop.default_locale);
  const defaults = DEFAULT_TEMPLATES[stage][fallbackLocale] ?? DEFAULT_TEMPLATES[stage].en;
  if (!defaults) throw new Error(`no default ${stage} template`);
  const email = overrides.find((o) => o.channel === "email");
  const sms = overrides.find((o) => o.channel === "sms");
  return {
    stage,
    locale: requested,
    enabled: shop.enabled ?? DEFAULT_STAGE_ENABLED[stage],
    email: email
      ? { subject: email.subject ?? defaults.email.subject, body: email.body, customized: true, default_locale: null }
      : { ...defaults.email, customized: false, default_locale: fallbackLocale },
    sms: sms
      ? { body: sms.body, customized: true, default_locale: null }
      : { ...defaults.sms, customized: false, default_locale: fallbackLocale },
    variables: stageVariables(stage),
  };
}

const TEMPLATE_NOTES = [`A message is rendered for the signup's stage, channel (${SIGNUP_CHANNELS.join(", ")}) and locale, falling back to the shop's default locale, then to en.`];

export const getTemplate = defineAction({
  name: "back_in_stock.templates.get",
  aliases: ["show the back in stock e-mail template", "read the back in stock alert text", "is the back in stock reminder enabled"],
  notes: TEMPLATE_NOTES,
  output: templateOutput,
  method: "GET",
  path: "/back_in_stock/templates/{stage}/{locale}",
  description:
    "The localized template of a stage (initial: the back-in-stock alert, reminder: the follow-up, signup_thank_you: sent right after signup; 0 and 1 are aliases of initial and reminder), with the stage's enabled switch, its e-mail (subject, body) and text message (body). A locale without its own text shows the shipped default of that language, else of the shop's default locale, else en; customized tells which.",
  kind: "read",
  params: templateParams,
  input: z.strictObject({}),
  async handler(ctx, { params }) {
    return loadTemplate(ctx.db, ctx.shopId, params.stage, params.locale);
  },
});

const templateSource = (max: number) => notBlank(z.string().max(max));

/** The texts of a PATCH (or of a preview to try): each optional. */
export const templateTexts = {
  email: z.strictObject({ subject: templateSource(500).optional(), body: templateSource(TEMPLATE_LIMITS.parseLength).optional() }).optional(),
  sms: z.strictObject({ body: templateSource(1600).optional() }).optional(),
};

type TemplateTexts = z.output<z.ZodObject<typeof templateTexts>>;

/** The 422 issues of texts about to be saved or previewed: each must render with the stage's sample values within the limits and use only its variables. */
export async function templateIssues(stage: Stage, texts: TemplateTexts, shopId: string): Promise<Issue[]> {
  const sources: [string, string | undefined, TemplateKind][] = [
    ["email.subject", texts.email?.subject, "text"],
    ["email.body", texts.email?.body, "html"],
    ["sms.body", texts.sms?.body, "text"],
  ];
  const problems: Issue[] = [];
  for (const [field, source, kind] of sources) {
    if (source === undefined) continue;
    const problem = (await templateProblem(field, source, kind, stageSample(stage), shopId)) ?? unknownVariableIssue(field, source, stageVariables(stage));
    if (problem) problems.push(problem);
  }
  return problems;
}

export const patchTemplate = defineAction({
  name: "back_in_stock.templates.update",
  aliases: ["edit the back in stock e-mail template", "change the back in stock sms text", "turn the back in stock reminder on or off"],
  notes: [...TEMPLATE_NOTES, "enabled switches the stage for every locale and channel; the texts change only for the locale in the path."],
  output: templateOutput,
  method: "PATCH",
  path: "/back_in_stock/templates/{stage}/{locale}",
  description: `Changes a stage's template for one locale (deep partial): enabled (the stage's on/off switch, for every locale), email.subject, email.body, sms.body. Texts are Liquid templates (no include, render or layout); a template that does not render with sample values, takes more than ${TEMPLATE_LIMITS.renderMs} ms or allocates more than ${TEMPLATE_LIMITS.memory} characters or list items is refused with 422, as is one that uses a variable the stage does not declare (names the template assigns, captures or loops over are its own). Variables: ${stageVariables("initial").join(", ")}.`,
  kind: "write",
  params: templateParams,
  input: z.strictObject({ enabled: z.boolean().optional(), ...templateTexts }),
  async handler(ctx, { params, input }) {
    const { stage, locale: requested } = params;
    const problems = await templateIssues(stage, input, ctx.shopId);
    if (problems.length > 0) throw unprocessable(problems);

    if (input.enabled !== undefined) {
      await setStageSwitch(ctx.db, ctx.shopId, "back_in_stock", stage, input.enabled);
    }
    if (input.email?.subject !== undefined || input.email?.body !== undefined || input.sms?.body !== undefined) {
      const { email, sms } = await loadTemplate(ctx.db, ctx.shopId, stage, requested);
      if (input.email?.subject !== undefined || input.email?.body !== undefined) {
        await upsertOverride(ctx.db, ctx.shopId, stage, requested, "email", input.email.subject ?? email.subject, input.email.body ?? email.body);
      }
      if (input.sms?.body !== undefined) {
        await upsertOverride(ctx.db, ctx.shopId, stage, requested, "sms", null, input.sms.body ?? sms.body);
      }
    }
    return loadTemplate(ctx.db, ctx.shopId, stage, requested);
  },
});

async function upsertOverride(db: Db, shopId: string, stage: Stage, locale: string, channel: Channel, subject: string | null, body: string): Promise<void> {
  await upsertTemplate(db, { shopId, area: "back_in_stock", stage, locale, channel }, { subject, body });
}
