import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_EMAIL_LAYOUT, DEFAULT_LAYOUT_HTML, type EmailLayout, LAYOUT_VARIABLES, prepareLayout, wrapInLayout } from "../src/account/layout.ts";
import { CHANNELS, DEFAULT_TEMPLATES, STAGES } from "../src/back_in_stock/templates/default-templates.ts";
import { stageVariables } from "../src/back_in_stock/templates/stages.ts";
import { unknownVariables } from "../src/messaging/render/variables-check.ts";
import { closeRenderPool } from "../src/messaging/render/pool.ts";
import { renderTemplate } from "../src/messaging/render/render.ts";
import { stageVariables as preorderStageVariables } from "../src/preorders/notifications/stages.ts";
import { NOTIFICATION_STAGES, SHIPPED_LOCALES, shippedTemplate } from "../src/preorders/notifications/templates.ts";

/**
 * What a new shop sends before it changes anything: every shipped template, stage, locale and
 * channel, wrapped in the default layout, rendered with the values a send has when nothing is
 * set (no logo, no header or footer text, no customer name, a product without variant options,
 * no image, a shop without a domain). Every e-mail of every such shop used to carry
 * `<img src="">`: `logo_url ?? ""` is truthy in Liquid.
 */

afterAll(closeRenderPool);

const UNSUBSCRIBE = "https://app.example/back_in_stock/unsubscribe?signup=s1&sig=abc";

/** The values render.ts gives a back-in-stock message when the shop and customer have set nothing optional. */
function bisVariables(shopUrl: string): Record<string, unknown> {
  return {
    shop: { name: "New Shop", url: shopUrl },
    customer: { first_name: "", email: "alex@example.com", phone: "" },
    product: { title: "Plain Tee", url: shopUrl ? `${shopUrl}/products/plain-tee` : "", image_url: "" },
    variant: { title: "", sku: "", price: "25.00" },
    unsubscribe_url: UNSUBSCRIBE,
  };
}

/** The values ledger.ts gives a preorder notification of an order with no delivery date, no balance. */
const PREORDER_VARIABLES = {
  shop: { name: "New Shop", url: "" },
  customer: { email: "alex@example.com", phone: "" },
  order: { name: "#1001", currency: "USD", total_price: "120.00", status: "open" },
  offer: { name: "Spring drop" },
  delivery: { type: "", date: "", days: null },
  previous_delivery: { type: "", date: "", days: null },
  balance: { amount: "", due_date: "", auto_collect: false },
};

const VOID_ELEMENTS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]);

/** What a reader would see broken in an e-mail's html: empty attributes, images without a source, elements with nothing in them. */
function htmlDefects(html: string): string[] {
  const defects: string[] = [];
  for (const match of html.matchAll(/<([a-zA-Z][\w-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g)) {
    const [tag, name = "", attributes = ""] = match;
    for (const empty of attributes.matchAll(/\s([\w-]+)\s*=\s*(?:""|'')/g)) defects.push(`empty ${empty[1] ?? ""} in ${tag}`);
    if (name.toLowerCase() === "img" && !/\ssrc\s*=\s*"[^"]+"/.test(attributes)) defects.push(`image without a source: ${tag}`);
    if (name.toLowerCase() === "a" && !/\shref\s*=\s*"[^"]+"/.test(attributes)) defects.push(`link without a target: ${tag}`);
  }
  for (const match of html.matchAll(/<([a-zA-Z][\w-]*)\b(?:[^>"']|"[^"]*"|'[^']*')*>\s*<\/\1\s*>/g)) {
    if (!VOID_ELEMENTS.has((match[1] ?? "").toLowerCase())) defects.push(`empty element: ${match[0]}`);
  }
  return defects;
}

/** Words around a value that was empty: `Hi ,`, `Tee ()`, `on .` (not ` :`, French spacing). */
function textDefects(text: string): string[] {
  return [/\(\s*\)/, /\s[,.](?=\s|$)/].flatMap((pattern) => {
    const found = pattern.exec(text);
    return found ? [`"${text.slice(Math.max(0, found.index - 20), found.index + 20)}"`] : [];
  });
}

async function wrapped(html: string, layout: EmailLayout, shopUrl: string): Promise<string> {
  const prepared = await prepareLayout(layout, { name: "New Shop", url: shopUrl });
  return wrapInLayout({ id: "m1", channel: "email", to: "alex@example.com", html, text: "" }, prepared).html ?? "";
}

interface Rendered {
  where: string;
  html?: string;
  text: string;
}

async function renderedBackInStock(shopUrl: string): Promise<Rendered[]> {
  const out: Rendered[] = [];
  const variables = bisVariables(shopUrl);
  for (const stage of STAGES) {
    for (const [locale, template] of Object.entries(DEFAULT_TEMPLATES[stage])) {
      for (const channel of CHANNELS) {
        const where = `back in stock ${stage} ${channel} ${locale} (shop url "${shopUrl}")`;
        if (channel === "sms") {
          out.push({ where, text: await renderTemplate(template.sms.body, variables, "text") });
          continue;
        }
        const html = await wrapped(await renderTemplate(template.email.body, variables, "html"), DEFAULT_EMAIL_LAYOUT, shopUrl);
        out.push({ where, html, text: await renderTemplate(template.email.subject, variables, "text") });
      }
    }
  }
  return out;
}

async function renderedPreorders(): Promise<Rendered[]> {
  const out: Rendered[] = [];
  for (const stage of NOTIFICATION_STAGES) {
    for (const locale of SHIPPED_LOCALES) {
      const template = shippedTemplate(stage, locale);
      if (!template) throw new Error(`no shipped ${stage} template in ${locale}`);
      const where = `preorder ${stage} ${locale}`;
      // balance_due is sent only while a balance is outstanding, due on a date; a confirmation may
      // have no balance, or one the offer gives no due date.
      // A payment_request is sent only with a balance and the platform's link to pay it.
      const balances =
        stage === "balance_due"
          ? [{ amount: "60.00", due_date: "2026-11-20", auto_collect: false }]
          : stage === "payment_request"
            ? [{ amount: "60.00", due_date: "", auto_collect: false, payment_url: "https://shop.example/orders/1/pay?key=ab" }]
            : [PREORDER_VARIABLES.balance, { amount: "60.00", due_date: "", auto_collect: false }];
      for (const balance of balances) {
        const variables = { ...PREORDER_VARIABLES, balance };
        const at = `${where} (balance ${balance.amount || "none"} due ${balance.due_date || "never"})`;
        out.push({ where: `${at} sms`, text: await renderTemplate(template.sms.body, variables, "text") });
        const html = await wrapped(await renderTemplate(template.email.body, variables, "html"), DEFAULT_EMAIL_LAYOUT, "");
        out.push({ where: `${at} email`, html, text: await renderTemplate(template.email.subject, variables, "text") });
      }
    }
  }
  return out;
}

function defectsOf(rendered: Rendered[]): string[] {
  return rendered.flatMap(({ where, html, text }) => [
    ...(html === undefined ? [] : htmlDefects(html)),
    ...textDefects(text),
    ...(html === undefined ? [] : textDefects(html.replace(/<[^>]*>/g, " "))),
  ].map((defect) => `${where}: ${defect}`));
}

describe("the checker itself", () => {
  it("finds what it is meant to find", () => {
    expect(htmlDefects('<p><img src="" alt="x"></p><a href="">x</a><p> </p><td style="a"></td><br><img alt="y">')).toEqual([
      'empty src in <img src="" alt="x">',
      'image without a source: <img src="" alt="x">',
      'empty href in <a href="">',
      'link without a target: <a href="">',
      "image without a source: <img alt=\"y\">",
      "empty element: <p> </p>",
      'empty element: <td style="a"></td>',
    ]);
    expect(htmlDefects('<p><img src="x.png" alt="Shop"></p><a href="https://x">go</a><br><meta charset="utf-8">')).toEqual([]);
    expect(textDefects("Hi , Tee () is on .")).toHaveLength(2);
    expect(textDefects("Hi Alex, Tee (Blue) is back.")).toEqual([]);
  });
});

describe("shipped templates and layout with nothing set", () => {
  it("render every back-in-stock stage, locale and channel without empty attributes, images, links or elements", async () => {
    const rendered = [...(await renderedBackInStock("https://new-shop.example")), ...(await renderedBackInStock(""))];
    expect(rendered).toHaveLength(2 * STAGES.length * 4 * CHANNELS.length);
    expect(defectsOf(rendered)).toEqual([]);
  });

  it("render every preorder notification stage, locale and channel without them", async () => {
    const rendered = await renderedPreorders();
    // Two balances for confirmation and shipping_date_change, one for balance_due and payment_request; two channels each.
    expect(rendered).toHaveLength((NOTIFICATION_STAGES.length * 2 - 2) * SHIPPED_LOCALES.length * 2);
    expect(defectsOf(rendered)).toEqual([]);
  });

  it("the default layout shows the store's name where the logo and the footer text are unset, and the logo once set", async () => {
    const bare = await wrapped("<p>Body</p>", DEFAULT_EMAIL_LAYOUT, "");
    expect(htmlDefects(bare)).toEqual([]);
    expect(bare).not.toContain("<img");
    expect(bare.match(/New Shop/g)).toHaveLength(2);
    const dressed = await wrapped("<p>Body</p>", { ...DEFAULT_EMAIL_LAYOUT, logo_url: "https://cdn.example/logo.png", header_text: "Hello", footer_text: "Bye" }, "");
    expect(htmlDefects(dressed)).toEqual([]);
    expect(dressed).toContain('<img src="https://cdn.example/logo.png" alt="New Shop"');
    expect(dressed).toContain("<div>Hello</div>");
    expect(dressed).toContain(">Bye</td>");
  });

  it("the default layout paints the e-mail with the layout's colors: page background, body background, text and accent", async () => {
    const colors = { background: "#101820", body_background: "#fefae0", text: "#283618", accent: "#bc6c25" };
    const html = await wrapped("<p>Body</p>", { ...DEFAULT_EMAIL_LAYOUT, colors }, "");
    expect(html).toContain('<body style="margin:0;padding:0;background:#101820">');
    expect(html).toContain("max-width:600px;background:#fefae0;color:#283618;");
    expect(html).toContain("border-bottom:3px solid #bc6c25");
    for (const old of Object.values(DEFAULT_EMAIL_LAYOUT.colors)) if (!Object.values(colors).includes(old)) expect(html).not.toContain(old);
  });

  it("a layout copied from the older default (`{% if layout.logo_url %}`) no longer sends an empty image", async () => {
    const older = DEFAULT_EMAIL_LAYOUT.html.replaceAll(" != blank %}", " %}");
    expect(older).toContain("{% if layout.logo_url %}");
    const html = await wrapped("<p>Body</p>", { ...DEFAULT_EMAIL_LAYOUT, html: older }, "");
    expect(htmlDefects(html)).toEqual([]);
  });
});

describe("shipped templates and layout use only the variables they declare", () => {
  it("every back-in-stock and preorder stage, locale and field, and the default layout", () => {
    const unknown: string[] = [];
    for (const stage of STAGES) {
      for (const [locale, t] of Object.entries(DEFAULT_TEMPLATES[stage])) {
        for (const source of [t.email.subject, t.email.body, t.sms.body]) unknown.push(...unknownVariables(source, stageVariables(stage)).map((v) => `${stage} ${locale}: ${v}`));
      }
    }
    for (const stage of NOTIFICATION_STAGES) {
      for (const locale of SHIPPED_LOCALES) {
        const t = shippedTemplate(stage, locale);
        for (const source of [t?.email.subject ?? "", t?.email.body ?? "", t?.sms.body ?? ""]) unknown.push(...unknownVariables(source, preorderStageVariables(stage)).map((v) => `${stage} ${locale}: ${v}`));
      }
    }
    unknown.push(...unknownVariables(DEFAULT_LAYOUT_HTML, LAYOUT_VARIABLES));
    expect(unknown).toEqual([]);
    // The check does see what they use.
    expect(unknownVariables(DEFAULT_LAYOUT_HTML, ["content"])).toContain("layout.logo_url");
  });
});
