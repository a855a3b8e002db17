import { describe, expect, it } from "vitest";
import { wrapInLayout } from "../src/account/layout.ts";
import type { OutboundMessage } from "../src/channels/index.ts";
import { api } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { header } from "./helpers/smtp-sink.ts";
import { waitFor } from "./helpers/wait.ts";

/**
 * Every back-in-stock e-mail links its unsubscribe page in its body: a merchant's template saved
 * without `{{ unsubscribe_url }}` used to send e-mails whose only way out was the List-Unsubscribe
 * header, which many mail programs do not show.
 */

const env = useTestEnv({ smtp: true, dataDir: true, worker: { pollInterval: 50 } });

const LINK = "https://app.example/back_in_stock/unsubscribe?signup=s1&sig=abc";
const ESCAPED = "https://app.example/back_in_stock/unsubscribe?signup=s1&amp;sig=abc";

function email(html: string, headers?: Record<string, string>): OutboundMessage {
  return { id: "m1", channel: "email", to: "alex@example.com", html, text: "", ...(headers ? { headers } : {}) };
}

const layout = { before: "<html><body>", after: "<footer>Shop</footer></body></html>" };

describe("wrapInLayout adds the link a marketing e-mail's body lacks", () => {
  it("inside the layout, or at the end of the bare body; the text part carries it too", () => {
    const marketing = { "List-Unsubscribe": `<${LINK}>` };
    const wrapped = wrapInLayout(email("<p>Back!</p>", marketing), layout);
    expect(wrapped.html).toBe(`<html><body><p>Back!</p>\n<p style="font-size:12px;color:#666"><a href="${ESCAPED}">Unsubscribe</a></p><footer>Shop</footer></body></html>`);
    expect(wrapped.text).toContain(LINK);
    const bare = wrapInLayout(email("<p>Back!</p>", marketing), null);
    expect(bare.html).toBe(`<p>Back!</p>\n<p style="font-size:12px;color:#666"><a href="${ESCAPED}">Unsubscribe</a></p>`);
    expect(bare.text).toContain(LINK);
    const german = wrapInLayout(email("<p>Zurück!</p>", { ...marketing, "Content-Language": "de-AT" }), null);
    expect(german.html).toContain(">Abmelden</a>");
  });

  it("leaves a body that links it (escaped or not) and a message that is not marketing as they are", () => {
    const marketing = { "List-Unsubscribe": `<${LINK}>` };
    const linked = `<p><a href="${ESCAPED}">Stop</a></p>`;
    expect(wrapInLayout(email(linked, marketing), layout).html).toBe(`${layout.before}${linked}${layout.after}`);
    expect(wrapInLayout(email(`<p>${LINK}</p>`, marketing), null).html).toBe(`<p>${LINK}</p>`);
    expect(wrapInLayout(email("<p>Your order</p>"), null).html).toBe("<p>Your order</p>");
    expect(wrapInLayout(email("<p>Your order</p>"), layout).html).toBe(`${layout.before}<p>Your order</p>${layout.after}`);
  });
});

/** The decoded text of a quoted-printable message (the links are ASCII). */
const decoded = (raw: string): string => raw.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

describe("a template saved without {{ unsubscribe_url }}", () => {
  it("still sends e-mails with the link, with the layout on and off", async () => {
    await seedVariants(env.app.pool, env.shopId, [{ n: 7301, product: 730, available: 5, productTitle: "Wool Cap" }]);
    const saved = await api(env.app, "PATCH", "/back_in_stock/templates/initial/en", { key: env.key, body: { email: { body: "<p>{{ product.title }} is back.</p>" } } });
    expect(saved.status).toBe(202);

    const send = async (contact: string): Promise<string> => {
      const { rows } = await env.app.pool.query<{ id: string }>(
        "insert into bis_signups (shop_id, variant_id, channel, contact, consent, locale) values ($1, $2, 'email', $3, true, 'en') returning id",
        [env.shopId, variantGid(7301), contact],
      );
      const answer = await api(env.app, "POST", `/back_in_stock/signups/${rows[0]?.id ?? ""}/notify`, { key: env.key });
      expect(answer.status).toBe(202);
      return waitFor(`the e-mail to ${contact}`, async () => env.sink.to(contact)[0]?.raw);
    };

    const withLayout = await send("cap-layout@example.com");
    const layoutOff = await api(env.app, "PATCH", "/account/templates/email_layout", { key: env.key, body: { enabled: false } });
    expect(layoutOff.status).toBe(202);
    const withoutLayout = await send("cap-bare@example.com");

    for (const raw of [withLayout, withoutLayout]) {
      const link = /<([^>]+)>/.exec(header(raw, "List-Unsubscribe") ?? "")?.[1] ?? "";
      expect(link).toMatch(/\/back_in_stock\/unsubscribe\?signup=/);
      const body = decoded(raw);
      expect(body).toContain("Wool Cap is back.");
      expect(body).toContain(`<a href="${link.replaceAll("&", "&amp;")}">Unsubscribe</a>`);
      // The text part: the link after its label.
      expect(body).toContain(`Unsubscribe (${link})`);
    }
    expect(decoded(withLayout)).toContain("<!DOCTYPE html>");
    expect(decoded(withoutLayout)).not.toContain("<!DOCTYPE html>");
  });
});
