import { describe, expect, it } from "vitest";
import { DEFAULT_EMAIL_LAYOUT, type RenderedMessage, prepareLayout, wrapInLayout } from "../src/account/layout.ts";
import { htmlToText } from "../src/messaging/render/html-to-text.ts";
import { closeRenderPool } from "../src/messaging/render/pool.ts";

/**
 * A rendered e-mail's text part is derived once, from the html it is sent with: the renderers
 * (back-in-stock, preorder, preview) leave it out and wrapInLayout derives it. Before, each
 * renderer derived it from the body and wrapInLayout derived it again from the wrapped html,
 * throwing the first away whenever a layout or the unsubscribe footer applied. The sent text must
 * be the same bytes as that two-step way gave, in every case.
 */

const LINK = "https://app.example/back_in_stock/unsubscribe?signup=s1&sig=abc";
const marketing = { "List-Unsubscribe": `<${LINK}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" };
const LINKED = `<p>Hi Ada,</p><p>The <strong>Bench Tee</strong> is back: <a href="https://shop.example/products/tee">buy it</a>.</p><p><a href="${LINK}">Unsubscribe</a></p>`;
const UNLINKED = "<p>Hi Ada,</p><p>The Bench Tee is back &amp; waiting.</p>";

function rendered(html: string, headers?: Record<string, string>): RenderedMessage {
  return { id: "m1", channel: "email", to: "ada@example.com", subject: "Back", html, ...(headers ? { headers } : {}) };
}

/** How the text part was made before: derived from the body by the renderer, then by wrapInLayout from the whole when it changed the html. */
function twoStepText(html: string, headers: Record<string, string> | undefined, layout: Parameters<typeof wrapInLayout>[1]): string {
  return wrapInLayout({ ...rendered(html, headers), text: htmlToText(html) }, layout).text;
}

describe("the text part of an e-mail, derived once from its final html", () => {
  it("with the default layout, without one, and with the unsubscribe footer added: the same text as before", async () => {
    const layout = await prepareLayout(DEFAULT_EMAIL_LAYOUT, { name: "Bench Shop", url: "https://shop.example" });
    try {
      const cases: [string, string, Record<string, string> | undefined, typeof layout | null][] = [
        ["layout, linked body", LINKED, marketing, layout],
        ["layout, footer added", UNLINKED, marketing, layout],
        ["no layout, linked body (html unchanged)", LINKED, marketing, null],
        ["no layout, footer added", UNLINKED, marketing, null],
        ["no layout, not marketing (html unchanged)", UNLINKED, undefined, null],
      ];
      for (const [name, html, headers, chosen] of cases) {
        const sent = wrapInLayout(rendered(html, headers), chosen);
        expect(sent.text, name).toBe(twoStepText(html, headers, chosen));
        expect(sent.text, name).toBe(htmlToText(sent.html ?? ""));
      }
      // Not only equal to itself: the bare body's text, and the footer's link in the text part.
      expect(wrapInLayout(rendered(UNLINKED), null).text).toBe("Hi Ada,\n\nThe Bench Tee is back & waiting.");
      expect(wrapInLayout(rendered(UNLINKED, marketing), null).text).toContain(`Unsubscribe (${LINK})`);
      expect(wrapInLayout(rendered(LINKED, marketing), layout).text).toContain("Bench Shop");
    } finally {
      await closeRenderPool();
    }
  });

  it("a text part given with the message is kept when the html is sent unchanged (preview, tests)", () => {
    expect(wrapInLayout({ ...rendered(UNLINKED), text: "given" }, null).text).toBe("given");
    expect(wrapInLayout({ id: "s1", channel: "sms", to: "+15550100", text: "Back in stock" }, null).text).toBe("Back in stock");
  });
});
