import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_LAYOUT_HTML } from "../src/account/layout.ts";
import { readMigrations } from "../src/db/migrate.ts";
import { invoke } from "./helpers/app.ts";
import { type SeedShop as Shop, newShop, seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { header } from "./helpers/smtp-sink.ts";
import { waitFor } from "./helpers/wait.ts";

// The domains and SMS sender ids the operator lets shops send as (beside EMAIL_FROM's no-reply@localhost).
const env = useTestEnv({
  shop: false,
  smtp: true,
  dataDir: true,
  worker: { poolSize: 12, pollInterval: 50 },
  config: { SENDER_EMAIL_DOMAINS: "sender.example, Mail.Example", SMS_SENDER_IDS: "SENDERSHOP" },
});

let variant = 600;
/** A signup of its own variant, notified on demand; answers the ledger id its message is sent under. */
async function notify(shop: Shop, contact: string, channel: "email" | "sms" = "email"): Promise<string> {
  variant += 1;
  await seedVariants(env.app.pool, shop.shopId, [{ n: variant, product: variant, available: 3, productTitle: "Cotton Scarf" }]);
  const { rows } = await env.app.pool.query<{ id: string }>(
    "insert into bis_signups (shop_id, variant_id, channel, contact, consent) values ($1, $2, $3, $4, true) returning id",
    [shop.shopId, variantGid(variant), channel, contact],
  );
  const answer = await invoke(env.app, "POST", `/back_in_stock/signups/${rows[0]?.id ?? ""}/notify`, { key: shop.key, body: {} });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  const messageId = (answer.body as { message_id: string }).message_id;
  await waitFor(`message ${messageId} to be sent`, async () => {
    const { rows: ledger } = await env.app.pool.query<{ status: string; last_error: string | null }>("select status, last_error from bis_ledger where id = $1", [messageId]);
    const row = ledger[0];
    if (row?.status === "failed" || row?.status === "blocked") throw new Error(`message ${row.status}: ${row.last_error ?? ""}`);
    return row?.status === "sent" ? true : undefined;
  });
  return messageId;
}

/** The decoded html (or text) part of a raw message (quoted-printable). */
function htmlPart(raw: string, type = "html"): string {
  const part = new RegExp(`Content-Type: text\\/${type}[^]*?\\r?\\n\\r?\\n([^]*?)\\r?\\n--`).exec(raw)?.[1] ?? "";
  return part.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

describe("account settings", () => {
  it("GET answers the store name and no contact e-mail; PATCH renames the store (shop.name) and sets the contact e-mail", async () => {
    const shop = await newShop(env.app, "Settings Shop");
    const read = await invoke(env.app, "GET", "/account/settings", { key: shop.key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ store_name: "Settings Shop", contact_email: null });

    const patched = await invoke(env.app, "PATCH", "/account/settings", { key: shop.key, body: { store_name: "Blue Harbour", contact_email: "help@blue.example" } });
    expect(patched.status).toBe(202);
    expect(patched.body).toEqual({ store_name: "Blue Harbour", contact_email: "help@blue.example" });
    const { rows } = await env.app.pool.query<{ name: string }>("select name from shops where id = $1", [shop.shopId]);
    expect(rows[0]?.name).toBe("Blue Harbour");

    const cleared = await invoke(env.app, "PATCH", "/account/settings", { key: shop.key, body: { contact_email: null } });
    expect(cleared.body).toEqual({ store_name: "Blue Harbour", contact_email: null });
  });

  it("refuses a blank or null store name, a bad e-mail and unknown fields, one message per field, and saves nothing", async () => {
    const shop = await newShop(env.app, "Settings Invalid");
    const answer = await invoke(env.app, "PATCH", "/account/settings", { key: shop.key, body: { store_name: "   ", contact_email: "not an address", timezone: "UTC" } });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ errors: ["store_name must not be blank", "contact_email must be an e-mail address", "timezone is not allowed"] });
    const nulled = await invoke(env.app, "PATCH", "/account/settings", { key: shop.key, body: { store_name: null } });
    expect(nulled.body).toEqual({ errors: ["store_name must be a string"] });
    const read = await invoke(env.app, "GET", "/account/settings", { key: shop.key });
    expect(read.body).toEqual({ store_name: "Settings Invalid", contact_email: null });
  });
});

describe("account sending", () => {
  it("GET answers every field null by default; PATCH validates addresses and the SMS sender", async () => {
    const shop = await newShop(env.app, "Sending Defaults");
    const read = await invoke(env.app, "GET", "/account/sending", { key: shop.key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ sender_name: null, sender_email: null, reply_to: null, sms_sender: null });

    const bad = await invoke(env.app, "PATCH", "/account/sending", {
      key: shop.key,
      body: { sender_name: "Line\nbreak", sender_email: "shop@", reply_to: "Shop <a@b.example>", sms_sender: "WAYTOOLONGSENDER", extra: true },
    });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      errors: [
        'sender_name must not contain an e-mail address, control characters or the characters < > " \\ @',
        "sender_email must be an e-mail address",
        "reply_to must be an e-mail address",
        "sms_sender must be an E.164 number (+15551234567) or an alphanumeric sender id of 1 to 11 letters, digits or spaces with at least one letter",
        "extra is not allowed",
      ],
    });
    const digits = await invoke(env.app, "PATCH", "/account/sending", { key: shop.key, body: { sms_sender: "12345" } });
    expect(digits.status).toBe(422);

    const number = await invoke(env.app, "PATCH", "/account/sending", { key: shop.key, body: { sms_sender: "+15551234567" } });
    expect(number.status).toBe(202);
    expect(number.body).toEqual({ sender_name: null, sender_email: null, reply_to: null, sms_sender: "+15551234567" });
  });

  it("refuses a sender the service does not send as: another domain's address, an unregistered SMS sender id", async () => {
    const shop = await newShop(env.app, "Sending Policy");
    const spoofed = await invoke(env.app, "PATCH", "/account/sending", { key: shop.key, body: { sender_name: "PayPal", sender_email: "security@paypal.com", sms_sender: "PayPal" } });
    expect(spoofed.status).toBe(422);
    expect(spoofed.body).toEqual({
      errors: [
        "sender_email must be an address at a domain this service sends from (localhost, sender.example, mail.example)",
        "sms_sender must be an E.164 number or a sender id registered with this service (SENDERSHOP)",
      ],
    });
    expect((await invoke(env.app, "GET", "/account/sending", { key: shop.key })).body).toMatchObject({ sender_name: null, sender_email: null });
    const allowed = await invoke(env.app, "PATCH", "/account/sending", { key: shop.key, body: { sender_email: "Shop@MAIL.example", sms_sender: "sendershop" } });
    expect(allowed.status).toBe(202);
    // A registered id goes out as the operator registered it, whatever the shop's spelling.
    const registeredId = await notify(shop, "+15550003333", "sms");
    const registered = JSON.parse(await readFile(path.join(env.dataDir, "outbox", `${registeredId}.sms.json`), "utf8")) as { from?: string };
    expect(registered.from).toBe("SENDERSHOP");
    // A stored sender the operator no longer allows: e-mails come from the service's address and
    // replies still reach the shop; texts from the channel's own sender.
    await env.app.pool.query(`update account_settings set sending = '{"sender_email": "news@dropped.example", "sms_sender": "DROPPED"}' where shop_id = $1`, [shop.shopId]);
    await notify(shop, "policy@example.com");
    const mail = env.sink.to("policy@example.com")[0];
    if (!mail) throw new Error("no message");
    expect(header(mail.raw, "From")).toMatch(/<no-reply@localhost>$/);
    expect(header(mail.raw, "Reply-To")).toBe("news@dropped.example");
    const smsId = await notify(shop, "+15550002222", "sms");
    const sms = JSON.parse(await readFile(path.join(env.dataDir, "outbox", `${smsId}.sms.json`), "utf8")) as { from?: string };
    expect(sms.from).not.toBe("DROPPED");
  });

  it("refuses a sender_name with an e-mail address, < > \" \\ @ or control characters, full-width look-alikes included; saves nothing", async () => {
    const shop = await newShop(env.app, "Sending Names");
    const rule = 'sender_name must not contain an e-mail address, control characters or the characters < > " \\ @';
    const names = ["security@paypal.com", "PayPal <x>", 'Say "hi"', "back\\slash", "bell\u0007", "tab\there", "cr\rlf", "line\u2028sep", "bidi\u202Elapyap", "security\uFF20paypal.com", "\uFF02PayPal\uFF02 \uFF1Cx\uFF1E"];
    for (const sender_name of names) {
      const answer = await invoke(env.app, "PATCH", "/account/sending", { key: shop.key, body: { sender_name } });
      expect({ name: sender_name, status: answer.status, body: answer.body }).toEqual({ name: sender_name, status: 422, body: { errors: [rule] } });
    }
    expect((await invoke(env.app, "GET", "/account/sending", { key: shop.key })).body).toMatchObject({ sender_name: null });
    const fine = await invoke(env.app, "PATCH", "/account/sending", { key: shop.key, body: { sender_name: "Café Ünïcode & Co. (Paris) – 10% off" } });
    expect(fine.status).toBe(202);
  });

  it("never puts an unsafe stored sender_name or store name in the From header", async () => {
    const shop = await newShop(env.app, "Stored Names");
    // Stored before the rule: its migration resets it (keeping the rest), and the e-mail comes from the store name.
    await env.app.pool.query(`insert into account_settings (shop_id, sending) values ($1, '{"sender_name": "security@paypal.com", "reply_to": "care@sender.example"}')`, [shop.shopId]);
    const rule = (await readMigrations()).find((m) => m.name === "095_sender_name_rule.sql");
    if (!rule) throw new Error("no migration resets the sender names stored before the rule");
    await env.app.pool.query(rule.sql);
    const { rows } = await env.app.pool.query<{ sending: unknown }>("select sending from account_settings where shop_id = $1", [shop.shopId]);
    expect(rows[0]?.sending).toEqual({ reply_to: "care@sender.example" });
    await notify(shop, "stored-name@example.com");
    const named = env.sink.to("stored-name@example.com")[0];
    if (!named) throw new Error("no message");
    expect(header(named.raw, "From")).toMatch(/^"?Stored Names"? <no-reply@localhost>$/);
    // A store name that breaks the rule too (it has no such rule of its own): the bare address.
    await env.app.pool.query("update shops set name = $2 where id = $1", [shop.shopId, '"PayPal" <security@paypal.com>']);
    await notify(shop, "stored-store@example.com");
    const bare = env.sink.to("stored-store@example.com")[0];
    if (!bare) throw new Error("no message");
    expect(header(bare.raw, "From")).toBe("no-reply@localhost");
  });

  it("back-in-stock e-mails carry the From name and address and the Reply-To; text messages the SMS sender; null falls back", async () => {
    const shop = await newShop(env.app, "Sender Shop");
    const patched = await invoke(env.app, "PATCH", "/account/sending", {
      key: shop.key,
      body: { sender_name: "Sender Team", sender_email: "news@sender.example", reply_to: "care@sender.example", sms_sender: "SENDERSHOP" },
    });
    expect(patched.status).toBe(202);

    await notify(shop, "first@example.com");
    const first = env.sink.to("first@example.com")[0];
    if (!first) throw new Error("no message");
    expect(header(first.raw, "From")).toMatch(/^"?Sender Team"? <news@sender\.example>$/);
    expect(header(first.raw, "Reply-To")).toBe("care@sender.example");
    expect(first.messageId).toMatch(/@sender\.example>$/);

    const smsId = await notify(shop, "+15550001111", "sms");
    const sms = JSON.parse(await readFile(path.join(env.dataDir, "outbox", `${smsId}.sms.json`), "utf8")) as { from: string; to: string };
    expect(sms).toMatchObject({ from: "SENDERSHOP", to: "+15550001111" });

    // Back to the fallbacks: the store name, the service's address, the settings' contact e-mail.
    await invoke(env.app, "PATCH", "/account/sending", { key: shop.key, body: { sender_name: null, sender_email: null, reply_to: null, sms_sender: null } });
    await invoke(env.app, "PATCH", "/account/settings", { key: shop.key, body: { contact_email: "hello@sender.example", store_name: "Sender Renamed" } });
    await notify(shop, "second@example.com");
    const second = env.sink.to("second@example.com")[0];
    if (!second) throw new Error("no message");
    expect(header(second.raw, "From")).toMatch(/^"?Sender Renamed"? <no-reply@localhost>$/);
    expect(header(second.raw, "Reply-To")).toBe("hello@sender.example");
    // The store name is the templates' shop.name.
    expect(htmlPart(second.raw)).toContain("is back in stock at Sender Renamed.");
  });
});

describe("account e-mail layout", () => {
  it("GET answers the shipped layout, enabled and not customized", async () => {
    const shop = await newShop(env.app, "Layout Defaults");
    const answer = await invoke(env.app, "GET", "/account/templates/email_layout", { key: shop.key });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      enabled: true,
      html: DEFAULT_LAYOUT_HTML,
      logo_url: null,
      customized: false,
      colors: { background: "#f4f4f5", body_background: "#ffffff", text: "#222222", accent: "#222222" },
    });
    expect((answer.body as { variables: string[] }).variables).toContain("content");
  });

  it("refuses a layout without {{ content }}, an invalid template, a template over the render limit and bad fields; nothing is saved", async () => {
    const shop = await newShop(env.app, "Layout Invalid");
    const missing = await invoke(env.app, "PATCH", "/account/templates/email_layout", { key: shop.key, body: { html: "<div>no body here</div>" } });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({ errors: ["html must place {{ content }} exactly once"] });
    const twice = await invoke(env.app, "PATCH", "/account/templates/email_layout", { key: shop.key, body: { html: "{{ content }}{{ content }}" } });
    expect(twice.body).toEqual({ errors: ["html must place {{ content }} exactly once"] });
    const broken = await invoke(env.app, "PATCH", "/account/templates/email_layout", { key: shop.key, body: { html: "{% if %}{{ content }}" } });
    expect(broken.status).toBe(422);
    expect((broken.body as { errors: string[] }).errors[0]).toMatch(/^html is not a valid template: /);
    const slow = await invoke(env.app, "PATCH", "/account/templates/email_layout", {
      key: shop.key,
      body: { html: "{% for a in (1..100000) %}{% for b in (1..100000) %}{% endfor %}{% endfor %}{{ content }}" },
    });
    expect(slow.status).toBe(422);
    expect((slow.body as { errors: string[] }).errors[0]).toMatch(/^html must render within/);
    const fields = await invoke(env.app, "PATCH", "/account/templates/email_layout", { key: shop.key, body: { logo_url: "javascript:alert(1)", colors: { accent: "red" }, font: "x" } });
    expect(fields.status).toBe(422);
    expect(fields.body).toEqual({ errors: ["logo_url must be an http or https URL", "colors.accent must be a hex color", "font is not allowed"] });
    const read = await invoke(env.app, "GET", "/account/templates/email_layout", { key: shop.key });
    expect(read.body).toMatchObject({ html: DEFAULT_LAYOUT_HTML, customized: false });
  });

  it("a saved layout wraps every back-in-stock e-mail (html and text parts); the preview renders without saving; disabled sends the bare body", async () => {
    const shop = await newShop(env.app, "Layout Shop");
    const html = '<div class="wrap" style="color:{{ layout.colors.text }}"><h1>{{ layout.header_text }}</h1>{{ content }}<footer>{{ layout.footer_text }} - {{ shop.name }}</footer></div>';

    const preview = await invoke(env.app, "POST", "/account/templates/email_layout/preview", {
      key: shop.key,
      body: { layout: { html, header_text: "Preview <News>" }, content: "<p>Body here</p>" },
    });
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({
      html: '<div class="wrap" style="color:#222222"><h1>Preview &lt;News&gt;</h1><p>Body here</p><footer> - Layout Shop</footer></div>',
      text: "Preview <News>\n\nBody here\n\n- Layout Shop",
      enabled: true,
    });
    const badPreview = await invoke(env.app, "POST", "/account/templates/email_layout/preview", { key: shop.key, body: { layout: { html: "none" } } });
    expect(badPreview.body).toEqual({ errors: ["layout.html must place {{ content }} exactly once"] });
    expect((await invoke(env.app, "GET", "/account/templates/email_layout", { key: shop.key })).body).toMatchObject({ customized: false });

    const saved = await invoke(env.app, "PATCH", "/account/templates/email_layout", {
      key: shop.key,
      body: { html, header_text: "Fresh news", footer_text: "Harbour Street 1", colors: { text: "#101010" } },
    });
    expect(saved.status).toBe(202);
    expect(saved.body).toMatchObject({ html, header_text: "Fresh news", footer_text: "Harbour Street 1", customized: true, colors: { text: "#101010", accent: "#222222" } });

    await notify(shop, "wrapped@example.com");
    const message = env.sink.to("wrapped@example.com")[0];
    if (!message) throw new Error("no message");
    const body = htmlPart(message.raw);
    expect(body).toMatch(/^<div class="wrap" style="color:#101010"><h1>Fresh news<\/h1><p>Hi/);
    expect(body).toContain("Cotton Scarf");
    expect(body).toMatch(/<footer>Harbour Street 1 - Layout Shop<\/footer><\/div>$/);
    const text = htmlPart(message.raw, "plain");
    expect(text).toMatch(/^Fresh news\s+Hi/);
    expect(text.trim()).toMatch(/Harbour Street 1 - Layout Shop$/);

    const off = await invoke(env.app, "PATCH", "/account/templates/email_layout", { key: shop.key, body: { enabled: false } });
    expect(off.body).toMatchObject({ enabled: false, customized: true });
    await notify(shop, "bare@example.com");
    const bare = env.sink.to("bare@example.com")[0];
    if (!bare) throw new Error("no message");
    expect(htmlPart(bare.raw)).toMatch(/^<p>Hi/);
    expect(bare.raw).not.toContain("Harbour Street 1");
  });

  it("a stored layout that no longer renders fails the e-mail with the reason, never sends it bare; text messages still go", async () => {
    const shop = await newShop(env.app, "Layout Broken");
    // Only possible by editing the row outside the API: the PATCH refuses it.
    await env.app.pool.query(`insert into account_settings (shop_id, email_layout) values ($1, '{"html": "<div>no body</div>"}')`, [shop.shopId]);
    variant += 1;
    await seedVariants(env.app.pool, shop.shopId, [{ n: variant, product: variant, available: 3 }]);
    const { rows } = await env.app.pool.query<{ id: string }>(
      "insert into bis_signups (shop_id, variant_id, channel, contact, consent) values ($1, $2, 'email', 'broken@example.com', true) returning id",
      [shop.shopId, variantGid(variant)],
    );
    const answer = await invoke(env.app, "POST", `/back_in_stock/signups/${rows[0]?.id ?? ""}/notify`, { key: shop.key, body: {} });
    expect(answer.status).toBe(202);
    const messageId = (answer.body as { message_id: string }).message_id;
    const row = await waitFor("the message to fail", async () => {
      const { rows: ledger } = await env.app.pool.query<{ status: string; last_error: string | null }>("select status, last_error from bis_ledger where id = $1", [messageId]);
      return ledger[0]?.status === "failed" ? ledger[0] : undefined;
    });
    expect(row.last_error).toBe("Template did not render: the e-mail layout's html must place {{ content }} exactly once");
    expect(env.sink.to("broken@example.com")).toEqual([]);
    await notify(shop, "+15550002222", "sms");
  });
});
