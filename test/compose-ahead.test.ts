import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_EMAIL_LAYOUT, prepareLayout } from "../src/account/layout.ts";
import { Renderer } from "../src/back_in_stock/templates/render.ts";
import { composedEmail, isComposedAhead, keepComposed } from "../src/channels/composed-ahead.ts";
import { createOutboxEmailSender } from "../src/channels/email-outbox.ts";
import { composeEmail } from "../src/channels/email-mime.ts";
import type { OutboundMessage, RenderedMessage } from "../src/channels/types.ts";
import { htmlToText } from "../src/messaging/render/html-to-text.ts";
import { closeRenderPool } from "../src/messaging/render/pool.ts";
import { finishMessages } from "../src/messaging/render/render.ts";
import { createShopWithKey } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { loadShopInfo } from "../src/account/shop-info.ts";

/**
 * A batch's e-mails are finished on the render pool: the text part derived from the final html
 * and the MIME composed there, so the thread that serves every shop's sends only writes the bytes
 * (issue 30: htmlToText and the composer were over a tenth of that thread's time per alert, and
 * linear in a body of up to a million characters). The bytes sent are what composing at the send
 * made; a message changed after it was composed is composed again at its send.
 */

const env = useTestEnv({ app: false, shop: false });
afterAll(closeRenderPool);

const FROM = '"Bench Shop" <no-reply@localhost>';
const LINK = "https://app.example/back_in_stock/unsubscribe?signup=s1&sig=abc";

function email(n: number, extra: Partial<RenderedMessage> = {}): RenderedMessage {
  return {
    id: `ahead-${n}`,
    channel: "email",
    to: `ada${n}@example.com`,
    from: FROM,
    subject: `Back in stock ${n}: Bench Tee`,
    html: `<p>Hi Ada,</p><p>The <strong>Bench Tee</strong> is back: <a href="https://shop.example/products/tee">buy it</a>. Café au lait, naïve résumé.</p><p><a href="${LINK}">Unsubscribe</a></p>`,
    headers: { "List-Unsubscribe": `<${LINK}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    ...extra,
  };
}

/** The raw message with what changes between two compositions (the boundary's random part, the Date) made equal. */
function comparable(raw: Buffer): string {
  return raw
    .toString("utf8")
    .replace(/--_alt-[0-9a-f]+/g, "--_alt-X")
    .replace(/^Date: .*$/m, "Date: X");
}

describe("e-mails composed on the render pool", () => {
  it("finishMessages derives each e-mail's text and composes it as the send would have; a text message keeps its text", async () => {
    const messages = [...Array.from({ length: 120 }, (_, n) => email(n)), { id: "sms-1", channel: "sms" as const, to: "+15550100", text: "Back in stock" }];
    const finished = await finishMessages(messages);
    expect(finished).toHaveLength(messages.length);
    for (const [n, message] of finished.slice(0, 120).entries()) {
      expect(message.text).toBe(htmlToText(messages[n]?.html ?? ""));
      expect(isComposedAhead(message)).toBe(true);
      const ahead = composedEmail(message, "Default <default@localhost>");
      expect(Buffer.isBuffer(ahead.raw)).toBe(true);
      expect(ahead.messageId).toBe(`<ahead-${n}@localhost>`);
      expect(ahead.envelope).toEqual({ from: "no-reply@localhost", to: [`ada${n}@example.com`] });
      // Only the boundary's randomness and the Date differ from composing it now.
      expect(comparable(ahead.raw)).toBe(comparable(composeEmail(message, FROM).raw));
    }
    const sms = finished[120];
    expect(sms?.text).toBe("Back in stock");
    expect(sms && isComposedAhead(sms)).toBe(false);
  });

  it("an e-mail the composer refuses is left to its send, which fails with the reason as before", async () => {
    const [bad] = await finishMessages([email(1, { to: "not an address" })]);
    if (!bad) throw new Error("nothing finished");
    expect(isComposedAhead(bad)).toBe(false);
    expect(() => composedEmail(bad, FROM)).toThrow("Invalid e-mail address");
  });

  it("a message composed ahead is frozen, and any changed copy of it is composed again at its send", async () => {
    const [message] = await finishMessages([email(2)]);
    if (!message) throw new Error("nothing finished");
    expect(Object.isFrozen(message)).toBe(true);
    expect(Object.isFrozen(message.headers)).toBe(true);
    const changed: OutboundMessage = { ...message, subject: "Another subject" };
    expect(isComposedAhead(changed)).toBe(false);
    expect(composedEmail(changed, FROM).raw.toString("utf8")).toContain("Subject: Another subject");
    expect(() => keepComposed({ ...changed, from: undefined }, composeEmail(changed, FROM))).toThrow("needs its own from");
  });

  it("the outbox writes the bytes composed ahead", async () => {
    const [message] = await finishMessages([email(3)]);
    if (!message) throw new Error("nothing finished");
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "ahead-outbox-"));
    try {
      const sender = createOutboxEmailSender({ dir, from: "Default <default@localhost>" });
      await sender.send(message);
      const written = await fs.readFile(path.join(dir, "ahead-3.eml"));
      expect(written.equals(composedEmail(message, FROM).raw)).toBe(true);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("a Renderer with the shop's dress answers its alerts laid out, from the shop, with their text and MIME made on the pool", async () => {
    const { shopId } = await createShopWithKey(env.pool, "Compose Ahead Shop");
    await seedVariants(env.pool, shopId, [{ n: 801, product: 801 }]);
    const shop = await loadShopInfo(env.pool, shopId);
    const layout = await prepareLayout(DEFAULT_EMAIL_LAYOUT, { name: shop.name, url: shop.url });
    const renderer = new Renderer(shop, {
      publicBaseUrl: "http://127.0.0.1:3000",
      unsubscribeSecret: "compose-ahead-secret-0123456789",
      emailFrom: "Shop <no-reply@localhost>",
      dress: (m) => ({ ...m, html: `${layout.before}${m.html ?? ""}${layout.after}`, from: '"Compose Ahead Shop" <alerts@localhost>' }),
    });
    const recipients = Array.from({ length: 60 }, (_, n) => ({
      ledgerId: `ledger-ahead-${n}`,
      signupId: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
      stage: "initial" as const,
      channel: "email" as const,
      contact: `shopper${n}@example.com`,
      locale: "en",
      firstName: "Ann",
      variantId: variantGid(801),
    }));
    await renderer.prepare(env.pool, recipients);
    for (const recipient of recipients) {
      const message = await renderer.render(recipient);
      expect(message.html?.startsWith(layout.before)).toBe(true);
      expect(message.text).toBe(htmlToText(message.html ?? ""));
      expect(message.text).toContain("Product 801");
      expect(isComposedAhead(message)).toBe(true);
      const raw = composedEmail(message, "Default <default@localhost>").raw.toString("utf8");
      expect(raw).toContain(`To: ${recipient.contact}`);
      expect(raw).toContain("From: Compose Ahead Shop <alerts@localhost>");
    }
  });
});
