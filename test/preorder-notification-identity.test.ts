import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { type NotificationBody, insertOffer, orderPayload, placeOrder, settledNotifications, useDomain } from "./helpers/preorder-shop.ts";
import { header } from "./helpers/smtp-sink.ts";
import { waitFor } from "./helpers/wait.ts";

// Preorder notifications go out as every message of the shop does: from the account's sender
// identity (GET/PATCH /account/sending), e-mails wrapped in the account's e-mail layout.
const env = useTestEnv({ shop: "Identity Shop", smtp: { keepRaw: true }, dataDir: true, worker: true, config: { SENDER_EMAIL_DOMAINS: "identity.example", SMS_SENDER_IDS: "IDENTITY" } });
const DOMAIN = "identity-shop.platform.local";

beforeAll(async () => {
  await useDomain(env.app.pool, env.shopId, DOMAIN);
});

/** The decoded html (or text) part of a raw message (quoted-printable). */
function part(raw: string | undefined, type: "html" | "plain" = "html"): string {
  const body = new RegExp(`Content-Type: text\\/${type}[^]*?\\r?\\n\\r?\\n([^]*?)\\r?\\n--`).exec(raw ?? "")?.[1] ?? "";
  const joined = body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(joined, "latin1").toString("utf8");
}

/** The text message written to the outbox for a notification. */
async function outboxSms(notificationId: string): Promise<{ from: string; to: string; body: string }> {
  const outbox = path.join(env.dataDir, "outbox");
  const file = (await readdir(outbox)).find((f) => f.includes(notificationId) && f.endsWith(".sms.json"));
  if (!file) throw new Error(`no outbox file for ${notificationId}`);
  return JSON.parse(await readFile(path.join(outbox, file), "utf8")) as { from: string; to: string; body: string };
}

const LAYOUT = '<div class="frame">{{ content }}<footer>{{ layout.footer_text }} - {{ shop.name }}</footer></div>';

describe("the sending identity and e-mail layout of preorder notifications", () => {
  it("confirmation, shipping date change and balance due e-mails carry the shop's From name and address and Reply-To, inside the layout; text messages the SMS sender; null falls back", async () => {
    const sending = await invoke(env.app, "PATCH", "/account/sending", {
      key: env.key,
      body: { sender_name: "Preorder Team", sender_email: "orders@identity.example", reply_to: "care@identity.example", sms_sender: "IDENTITY" },
    });
    expect(sending.status).toBe(202);
    const layout = await invoke(env.app, "PATCH", "/account/templates/email_layout", { key: env.key, body: { html: LAYOUT, footer_text: "Dock Road 5" } });
    expect(layout.status).toBe(202);
    const sms = await invoke(env.app, "PATCH", "/preorders/settings", { key: env.key, body: { notifications: { sms: { enabled: true } } } });
    expect(sms.status).toBe(202);

    const offer = await insertOffer(env.app.pool, env.shopId, { shipping: { delivery: { type: "on_date", date: "2027-05-01T00:00:00.000Z", days: null } } }, "Rain jacket");
    const orderId = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, email: "dressed@example.com", phone: "+15555550177" }));
    const list = await settledNotifications(env, orderId, "confirmation", 2);
    expect(list.map((n) => [n.channel, n.status]).sort()).toEqual([
      ["email", "sent"],
      ["sms", "sent"],
    ]);

    const [mail] = env.sink.to("dressed@example.com");
    if (!mail) throw new Error("no confirmation e-mail");
    expect(header(mail.raw, "From")).toMatch(/^"?Preorder Team"? <orders@identity\.example>$/);
    expect(header(mail.raw, "Reply-To")).toBe("care@identity.example");
    // The message id keeps the ledger row's id, on the shop's sending domain.
    const email = list.find((n) => n.channel === "email") as NotificationBody;
    expect(mail.messageId).toBe(`<${email.message_id}@identity.example>`);
    const html = part(mail.raw);
    expect(html).toMatch(/^<div class="frame">/);
    expect(html).toContain("Rain jacket");
    expect(html).toMatch(/<footer>Dock Road 5 - Identity Shop<\/footer><\/div>$/);
    expect(part(mail.raw, "plain").trim()).toMatch(/Dock Road 5 - Identity Shop$/);

    const text = await outboxSms(list.find((n) => n.channel === "sms")?.id ?? "");
    expect(text).toMatchObject({ from: "IDENTITY", to: "+15555550177" });
    expect(text.body).toContain("Identity Shop: Thank you for your preorder");
    expect(text.body).not.toContain("Dock Road 5");

    // Every stage is dressed the same way: the shipping date change of the same order.
    const moved = await invoke(env.app, "POST", `/preorders/offers/${offer.id}/shipping/set_delivery_date`, { key: env.key, body: { date: "2027-06-01T00:00:00Z" } });
    expect(moved.status).toBe(202);
    const changes = await settledNotifications(env, orderId, "shipping_date_change", 2);
    expect(changes.every((n) => n.status === "sent")).toBe(true);
    const notice = env.sink.to("dressed@example.com").find((m) => m.subject.startsWith("New shipping date"));
    if (!notice) throw new Error("no shipping date change e-mail");
    expect(header(notice.raw, "From")).toMatch(/^"?Preorder Team"? <orders@identity\.example>$/);
    expect(part(notice.raw)).toMatch(/^<div class="frame">[^]*now ships on 2027-06-01[^]*<footer>Dock Road 5 - Identity Shop<\/footer><\/div>$/);
    const changeSms = await outboxSms(changes.find((n) => n.channel === "sms")?.id ?? "");
    expect(changeSms.from).toBe("IDENTITY");

    // And the balance_due reminder.
    const dueDate = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const dueOffer = await insertOffer(env.app.pool, env.shopId, { payments: { remaining_balance: { due: { type: "on_date", date: dueDate, days: null } } } }, "Deposit lamp");
    const owing = await placeOrder(
      env,
      DOMAIN,
      "orders/create",
      orderPayload({ plan: dueOffer.plan, email: "owing-dressed@example.com", financial_status: "partially_paid", total_outstanding: "40.00" }),
    );
    expect(await settledNotifications(env, owing, "balance_due")).toEqual([expect.objectContaining({ status: "sent", channel: "email" })]);
    const reminder = env.sink.to("owing-dressed@example.com").find((m) => m.subject.startsWith("The balance of your preorder"));
    if (!reminder) throw new Error("no balance due e-mail");
    expect(header(reminder.raw, "From")).toMatch(/^"?Preorder Team"? <orders@identity\.example>$/);
    expect(header(reminder.raw, "Reply-To")).toBe("care@identity.example");
    expect(part(reminder.raw)).toMatch(/^<div class="frame">[^]*remaining balance of 40\.00 USD[^]*<footer>Dock Road 5 - Identity Shop<\/footer><\/div>$/);

    // Back to the fallbacks: the store name, the service's address, the contact e-mail; layout off sends the bare body.
    await invoke(env.app, "PATCH", "/account/sending", { key: env.key, body: { sender_name: null, sender_email: null, reply_to: null, sms_sender: null } });
    await invoke(env.app, "PATCH", "/account/settings", { key: env.key, body: { contact_email: "hello@identity.example" } });
    await invoke(env.app, "PATCH", "/account/templates/email_layout", { key: env.key, body: { enabled: false } });
    await invoke(env.app, "PATCH", "/preorders/settings", { key: env.key, body: { notifications: { sms: { enabled: false } } } });
    const plain = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, email: "plain@example.com" }));
    expect(await settledNotifications(env, plain, "confirmation")).toEqual([expect.objectContaining({ status: "sent" })]);
    const [bare] = env.sink.to("plain@example.com");
    if (!bare) throw new Error("no bare e-mail");
    expect(header(bare.raw, "From")).toMatch(/^"?Identity Shop"? <no-reply@localhost>$/);
    expect(header(bare.raw, "Reply-To")).toBe("hello@identity.example");
    expect(part(bare.raw)).not.toContain("frame");
    expect(part(bare.raw)).toContain("Rain jacket");
  });

  it("a stored layout that no longer renders fails the e-mail with the reason and sends nothing; the text message still goes", async () => {
    const { shopId, apiKey } = await createShopWithKey(env.app.pool, "Broken Layout Shop");
    const domain = "broken-layout-shop.platform.local";
    await useDomain(env.app.pool, shopId, domain);
    // Only possible by editing the row outside the API: the PATCH refuses it.
    await env.app.pool.query(`insert into account_settings (shop_id, email_layout) values ($1, '{"html": "<div>no body</div>"}')`, [shopId]);
    expect((await invoke(env.app, "PATCH", "/preorders/settings", { key: apiKey, body: { notifications: { sms: { enabled: true } } } })).status).toBe(202);
    const offer = await insertOffer(env.app.pool, shopId);
    const orderId = await placeOrder(env, domain, "orders/create", orderPayload({ plan: offer.plan, email: "broken-layout@example.com", phone: "+15555550188" }));
    const rows = await waitFor("both notifications decided", async () => {
      const { rows: ledger } = await env.app.pool.query<{ channel: string; status: string; last_error: string | null; attempts: number }>(
        "select channel, status, last_error, attempts from preorder_notifications where order_id = $1 and stage = 'confirmation' order by channel",
        [orderId],
      );
      return ledger.length === 2 && ledger.every((r) => r.status !== "pending") ? ledger : undefined;
    });
    expect(rows).toEqual([
      { channel: "email", status: "failed", attempts: 0, last_error: "Template did not render: the e-mail layout's html must place {{ content }} exactly once" },
      { channel: "sms", status: "sent", attempts: 1, last_error: null },
    ]);
    expect(env.sink.to("broken-layout@example.com")).toEqual([]);
  });
});
