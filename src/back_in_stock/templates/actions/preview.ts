import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import { fieldIssue, unprocessable } from "../../../core/errors.ts";
import { dressMessage, loadAccountMessaging } from "../../../account/messaging.ts";
import { senderPolicy } from "../../../account/sending.ts";
import { STAGES } from "../default-templates.ts";
import { loadShopInfo } from "../../../account/shop-info.ts";
import { stageSample } from "../stages.ts";
import { templateFailure } from "../../../messaging/render/limits.ts";
import { renderTemplate } from "../../../messaging/render/render.ts";
import { loadTemplate, templateIssues, templateParams, templateTexts } from "./templates.ts";

/**
 * What a stage's messages look like before anything is saved: the saved (or shipped) texts with
 * the texts to try laid over them, rendered with sample values and dressed as a send dresses
 * them (the shop's layout and sender, the unsubscribe link a body lacks).
 */

const output = z.strictObject({
  stage: z.enum(STAGES),
  locale: z.string(),
  email: z.strictObject({
    from: z.string().describe("the From header a send would carry"),
    subject: z.string(),
    html: z.string().describe("the whole e-mail: the body inside the shop's layout when it is on"),
    text: z.string().describe("the text part an e-mail would carry"),
  }),
  sms: z.strictObject({ text: z.string() }),
  layout: z.boolean().describe("whether the shop's e-mail layout is on (GET /account/templates/email_layout)"),
});

async function render(source: string, variables: Record<string, unknown>, kind: "text" | "html", field: string, owner: string): Promise<string> {
  try {
    return await renderTemplate(source, variables, kind, { interactive: true, owner });
  } catch (error) {
    throw unprocessable([fieldIssue(field, templateFailure("", error).trim())]);
  }
}

export const previewTemplate = defineAction({
  name: "back_in_stock.templates.preview",
  aliases: ["preview the back in stock e-mail", "try a back in stock template before saving", "render the back in stock sms text"],
  notes: [
    "Nothing is saved. The values are samples (customer Alex, product Sample Tee) with the shop's own name and URL.",
    "A body without {{ unsubscribe_url }} shows the unsubscribe link a send adds at its end.",
  ],
  output,
  method: "POST",
  path: "/back_in_stock/templates/{stage}/{locale}/preview",
  description:
    "Renders a stage's template for a locale as a send would, without saving: the saved texts (or the shipped default the GET shows) with email.subject, email.body and sms.body of the body (each optional, the PATCH's rules) laid over them, rendered with sample values, the e-mail wrapped in the shop's layout and sent from its sender. Answers email (from, subject, html, text), sms (text) and whether the layout is on. A text the PATCH would refuse is 422 with the PATCH's message.",
  kind: "read",
  params: templateParams,
  input: z.strictObject(templateTexts),
  async handler(ctx, { params, input }) {
    const { stage, locale } = params;
    const problems = await templateIssues(stage, input, ctx.shopId);
    if (problems.length > 0) throw unprocessable(problems);
    const saved = await loadTemplate(ctx.db, ctx.shopId, stage, locale);
    const shop = await loadShopInfo(ctx.db, ctx.shopId);
    const sample = stageSample(stage);
    const variables = { ...sample, shop: { name: shop.name, url: shop.url } };
    const link = typeof sample.unsubscribe_url === "string" ? sample.unsubscribe_url : "";

    const subject = await render(input.email?.subject ?? saved.email.subject, variables, "text", "email.subject", ctx.shopId);
    const html = await render(input.email?.body ?? saved.email.body, variables, "html", "email.body", ctx.shopId);
    const sms = await render(input.sms?.body ?? saved.sms.body, variables, "text", "sms.body", ctx.shopId);

    const account = await loadAccountMessaging(ctx.db, ctx.shopId, { senders: senderPolicy(ctx.config), shopUrl: shop.url });
    const message = {
      id: "preview",
      channel: "email" as const,
      to: "alex@example.com",
      subject: subject.replace(/\s+/g, " ").trim(),
      html,
      headers: { "List-Unsubscribe": `<${link}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    };
    let dressed;
    try {
      dressed = dressMessage(message, account);
    } catch (error) {
      // The stored layout was checked when saved; one that stopped rendering since fails every e-mail.
      throw unprocessable([fieldIssue("layout", `does not render: ${error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error)}`)]);
    }
    return {
      stage,
      locale,
      email: { from: dressed.from ?? ctx.config.EMAIL_FROM, subject: dressed.subject ?? "", html: dressed.html ?? "", text: dressed.text },
      sms: { text: sms.trim() },
      layout: account.layout !== null,
    };
  },
});
