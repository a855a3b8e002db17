import { z } from "zod";
import type { OutboundMessage, RenderedMessage } from "../channels/types.ts";
import type { Db } from "../core/db.ts";
import { type Issue, fieldIssue } from "../core/errors.ts";
import { hexColor } from "../core/schemas.ts";
import { withText } from "../messaging/render/message-text.ts";
import { TEMPLATE_LIMITS, templateFailure, templateIssue } from "../messaging/render/limits.ts";
import { renderTemplate, templateProblem } from "../messaging/render/render.ts";
import { unknownVariableIssue } from "../messaging/render/variables-check.ts";
import { defineDocument } from "../core/settings-document.ts";
import { withUnsubscribeLink } from "./unsubscribe-footer.ts";
import { loadAccountSettings } from "./settings.ts";

/**
 * The shared e-mail layout: a Liquid HTML document around every e-mail's body, `{{ content }}`
 * standing where the body goes. Rendered by the same engine, with the same limits, as the
 * back-in-stock templates (src/messaging/render, on the render pool). Its variables are the shop's only (content,
 * shop.name, shop.url, layout.*), so it renders once per shop and sender, not once per message:
 * the body is put in place of a marker afterwards, so `{{ content }}` needs no `| raw`.
 *
 * Use from any e-mail sender (back-in-stock alerts, preorder notifications):
 *   const layout = await loadEmailLayout(db, shopId);     // a PreparedLayout, or null when disabled
 *   message = wrapInLayout(message, layout);
 */

export const LAYOUT_VARIABLES = [
  "content",
  "shop.name",
  "shop.url",
  "layout.logo_url",
  "layout.header_text",
  "layout.footer_text",
  "layout.colors.background",
  "layout.colors.body_background",
  "layout.colors.text",
  "layout.colors.accent",
] as const;

export const DEFAULT_LAYOUT_HTML = `<!DOCTYPE html>
<html>
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>
<body style="margin:0;padding:0;background:{{ layout.colors.background }}">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:{{ layout.colors.background }}">
<tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="max-width:600px;background:{{ layout.colors.body_background }};color:{{ layout.colors.text }};font-family:Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5">
<tr><td style="padding:20px 24px;border-bottom:3px solid {{ layout.colors.accent }}">{% if layout.logo_url != blank %}<img src="{{ layout.logo_url }}" alt="{{ shop.name }}" style="max-height:48px">{% else %}<strong>{{ shop.name }}</strong>{% endif %}{% if layout.header_text != blank %}<div>{{ layout.header_text }}</div>{% endif %}</td></tr>
<tr><td style="padding:24px">{{ content }}</td></tr>
<tr><td style="padding:16px 24px;font-size:12px;color:#777">{% if layout.footer_text != blank %}{{ layout.footer_text }}{% else %}{{ shop.name }}{% endif %}</td></tr>
</table>
</td></tr>
</table>
</body>
</html>`;

const httpsUrl = z
  .string({ error: "must be a URL" })
  .max(2_000)
  .regex(/^https?:\/\/[^\s"'<>]+$/, "must be an http or https URL");

export const emailLayoutSchema = z.strictObject({
  enabled: z.boolean().describe("Wrap e-mails in the layout; false sends each e-mail's body as it renders"),
  html: z
    .string({ error: "must be a string" })
    .max(TEMPLATE_LIMITS.parseLength)
    .describe(`Liquid HTML; {{ content }} exactly once, where the message's body goes. Variables: ${LAYOUT_VARIABLES.join(", ")}`),
  logo_url: httpsUrl.nullable().describe("layout.logo_url: an image shown in the header; null: the store name"),
  header_text: z.string().max(500).describe("layout.header_text: a line under the logo (may be empty)"),
  footer_text: z.string().max(2_000).describe("layout.footer_text: the footer line; empty: the store name"),
  colors: z.strictObject({
    background: hexColor,
    body_background: hexColor,
    text: hexColor,
    accent: hexColor,
  }),
});

export type EmailLayout = z.output<typeof emailLayoutSchema>;

export const DEFAULT_EMAIL_LAYOUT: EmailLayout = {
  enabled: true,
  html: DEFAULT_LAYOUT_HTML,
  logo_url: null,
  header_text: "",
  footer_text: "",
  colors: { background: "#f4f4f5", body_background: "#ffffff", text: "#222222", accent: "#222222" },
};

export const emailLayoutDocument = defineDocument({
  table: "account_settings",
  column: "email_layout",
  label: "account email_layout",
  schema: emailLayoutSchema,
  defaults: DEFAULT_EMAIL_LAYOUT,
});

/** Stands for the body while the layout renders: no character the html engine escapes. */
const CONTENT_MARKER = "LAYOUTCONTENT7f3a9c2e51d04b8b";

export interface LayoutShop {
  name: string;
  url: string;
}

/** A layout rendered for one shop: what comes before and after the body. */
export interface PreparedLayout {
  before: string;
  after: string;
}

function variables(layout: EmailLayout, shop: LayoutShop): Record<string, unknown> {
  return {
    content: CONTENT_MARKER,
    shop,
    // An unset value is nil, not "": an empty string is truthy in Liquid, and layouts copied from
    // an older default test `{% if layout.logo_url %}` (an empty one sent <img src="">).
    layout: { logo_url: layout.logo_url ?? null, header_text: layout.header_text || null, footer_text: layout.footer_text || null, colors: layout.colors },
  };
}

const ONE_CONTENT = "must place {{ content }} exactly once";

/** Renders the layout for a shop; throws an Error naming the rule it broke. */
export async function prepareLayout(layout: EmailLayout, shop: LayoutShop): Promise<PreparedLayout> {
  let out: string;
  try {
    out = await renderTemplate(layout.html, variables(layout, shop), "html");
  } catch (error) {
    throw new Error(templateFailure("the e-mail layout's html", error), { cause: error });
  }
  const parts = out.split(CONTENT_MARKER);
  if (parts.length !== 2) throw new Error(`the e-mail layout's html ${ONE_CONTENT}`);
  return { before: parts[0] ?? "", after: parts[1] ?? "" };
}

/** The 422 issues of a layout about to be saved: its html must render (limits included), use only LAYOUT_VARIABLES and hold {{ content }} once. */
export async function layoutIssues(layout: EmailLayout, shop: LayoutShop): Promise<Issue[]> {
  // With the layout's own values (not the back-in-stock samples): they are what it renders with.
  const problem = await templateProblem("html", layout.html, "html", variables(layout, shop));
  if (problem) return [problem];
  try {
    const out = await renderTemplate(layout.html, variables(layout, shop), "html", { interactive: true });
    if (out.split(CONTENT_MARKER).length !== 2) return [fieldIssue("html", ONE_CONTENT)];
  } catch (error) {
    return [templateIssue("html", error)];
  }
  const unknown = unknownVariableIssue("html", layout.html, LAYOUT_VARIABLES);
  return unknown ? [unknown] : [];
}

/** The shop's layout, rendered; null when it is switched off. Throws when a stored layout no longer renders. */
export async function loadEmailLayout(db: Db, shopId: string, shopUrl: string): Promise<PreparedLayout | null> {
  const layout = await emailLayoutDocument.load(db, shopId);
  if (!layout.enabled) return null;
  const settings = await loadAccountSettings(db, shopId);
  return prepareLayout(layout, { name: settings.store_name, url: shopUrl });
}

export type { RenderedMessage } from "../channels/types.ts";

/**
 * Wraps an e-mail's html body in the layout, leaving its text part to be derived from the whole
 * html (withText) when the layout or the footer changed it: a text given for the body alone
 * would no longer match. Other messages pass. A marketing e-mail whose body does not link its
 * unsubscribe page gets the link at the body's end, with or without a layout
 * (unsubscribe-footer.ts).
 */
export function layoutMessage(message: RenderedMessage, layout: PreparedLayout | null): RenderedMessage {
  if (message.channel !== "email" || message.html === undefined) return message;
  const body = withUnsubscribeLink(message.html, message.headers);
  if (!layout && body === message.html) return message;
  const { text: _bodyText, ...rest } = message;
  return { ...rest, html: layout ? `${layout.before}${body}${layout.after}` : body };
}

/** layoutMessage, with the text part derived here (on this thread: a batch's sends finish theirs on the render pool, finishMessages). */
export function wrapInLayout(message: RenderedMessage, layout: PreparedLayout | null): OutboundMessage {
  return withText(layoutMessage(message, layout));
}
