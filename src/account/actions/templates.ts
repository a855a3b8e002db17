import { z } from "zod";
import { defineAction } from "../../core/action.ts";
import type { Db } from "../../core/db.ts";
import { mergeDeep } from "../../core/deep-partial.ts";
import { unprocessable } from "../../core/errors.ts";
import { formatIssues } from "../../core/validation.ts";
import {
  type EmailLayout,
  LAYOUT_VARIABLES,
  type LayoutShop,
  emailLayoutDocument,
  emailLayoutSchema,
  layoutIssues,
  prepareLayout,
  wrapInLayout,
} from "../layout.ts";
import { loadAccountSettings } from "../settings.ts";
import { TEMPLATE_LIMITS } from "../../messaging/render/limits.ts";

/** A hex colour as answered: a pattern, not the request schema's custom `hex-color` format (MCP clients' validators do not know it). */
const hexOutput = z
  .string()
  .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/)
  .describe("hex colour such as #1a2b3c");

const layoutOutput = emailLayoutSchema.extend({
  colors: z.strictObject({ background: hexOutput, body_background: hexOutput, text: hexOutput, accent: hexOutput }),
  customized: z.boolean().describe("true when the merchant changed anything of the shipped layout"),
  variables: z.array(z.string()).describe("the variables the layout's html can use"),
});

async function layoutShop(db: Db, shopId: string): Promise<LayoutShop> {
  const settings = await loadAccountSettings(db, shopId);
  const { rows } = await db.query<{ platform_domain: string | null }>("select platform_domain from shops where id = $1", [shopId]);
  const domain = rows[0]?.platform_domain;
  return { name: settings.store_name, url: domain ? `https://${domain}` : "" };
}

async function present(db: Db, shopId: string, layout: EmailLayout): Promise<z.output<typeof layoutOutput>> {
  const stored = await emailLayoutDocument.stored(db, shopId);
  return { ...layout, customized: Object.keys(stored).length > 0, variables: [...LAYOUT_VARIABLES] };
}

const LAYOUT_RULES = `html is Liquid (the same engine and limits as the back-in-stock templates: at most ${TEMPLATE_LIMITS.parseLength} characters, ${TEMPLATE_LIMITS.renderMs} ms per render) and must place {{ content }} exactly once: that is where each e-mail's body goes; a variable not among ${LAYOUT_VARIABLES.join(", ")} is refused`;

export const getEmailLayout = defineAction({
  name: "account.templates.email_layout.get",
  method: "GET",
  path: "/account/templates/email_layout",
  description: `The shared e-mail layout every back-in-stock e-mail is wrapped in: enabled, html (Liquid; {{ content }} is the message's body), logo_url, header_text, footer_text, colors (background, body_background, text, accent: hex), customized, and the variables the html can use (${LAYOUT_VARIABLES.join(", ")}).`,
  aliases: ["show the email layout", "read the shared email wrapper"],
  kind: "read",
  input: z.strictObject({}),
  output: layoutOutput,
  async handler(ctx) {
    return present(ctx.db, ctx.shopId, await emailLayoutDocument.load(ctx.db, ctx.shopId));
  },
});

export const patchEmailLayout = defineAction({
  name: "account.templates.email_layout.update",
  method: "PATCH",
  path: "/account/templates/email_layout",
  description: `Changes the shared e-mail layout (deep partial: only the keys sent change). ${LAYOUT_RULES}. enabled: false sends each e-mail's body without the layout. Answers the complete layout.`,
  notes: [
    "The layout is checked by rendering it when saved: a template that does not parse, goes beyond a limit, lacks {{ content }} or uses an unknown variable is a 422 on html, and nothing is saved.",
    "The text part of each e-mail is derived from the whole wrapped html.",
  ],
  aliases: ["change the email layout", "set the email logo", "customize the email header and footer"],
  kind: "write",
  input: emailLayoutDocument.patchSchema,
  output: layoutOutput,
  async handler(ctx, { input }) {
    const shop = await layoutShop(ctx.db, ctx.shopId);
    const layout = await emailLayoutDocument.patch(ctx.db, ctx.shopId, input, (merged) => layoutIssues(merged, shop));
    return present(ctx.db, ctx.shopId, layout);
  },
});

const SAMPLE_CONTENT = "<p>Hi Alex,</p>\n<p>Good news: Sample Tee (Blue / M) is back in stock.</p>\n<p><a href=\"https://sample-store.example/products/sample-tee\">Shop now</a></p>";

export const previewEmailLayout = defineAction({
  name: "account.templates.email_layout.preview",
  method: "POST",
  path: "/account/templates/email_layout/preview",
  description: `Renders the e-mail layout around a body without saving anything: the saved layout with layout (optional, the same deep-partial body as the PATCH) laid over it, around content (optional html; a sample back-in-stock body by default). Answers html and text (the text part an e-mail would carry). ${LAYOUT_RULES}.`,
  aliases: ["preview the email layout", "render the email wrapper"],
  kind: "read",
  input: z.strictObject({
    layout: emailLayoutDocument.patchSchema.optional(),
    content: z.string().max(TEMPLATE_LIMITS.parseLength).optional(),
  }),
  output: z.strictObject({ html: z.string(), text: z.string(), enabled: z.boolean().describe("whether e-mails are wrapped now (the previewed value)") }),
  async handler(ctx, { input }) {
    const saved = await emailLayoutDocument.load(ctx.db, ctx.shopId);
    const parsed = emailLayoutSchema.safeParse(mergeDeep(saved, input.layout, emailLayoutSchema));
    if (!parsed.success) {
      throw unprocessable(formatIssues(parsed.error.issues).map((i) => ({ ...i, path: i.path === "" ? "layout" : `layout.${i.path}` })));
    }
    const shop = await layoutShop(ctx.db, ctx.shopId);
    const issues = await layoutIssues(parsed.data, shop);
    if (issues.length > 0) throw unprocessable(issues.map((i) => ({ ...i, path: `layout.${i.path}` })));
    const message = wrapInLayout({ id: "preview", channel: "email", to: "preview@example.com", html: input.content ?? SAMPLE_CONTENT, text: "" }, await prepareLayout(parsed.data, shop));
    return { html: message.html ?? "", text: message.text, enabled: parsed.data.enabled };
  },
});
