import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { type NotificationBody, decoded, insertOffer, orderPayload, placeOrder, settledNotifications, useDomain } from "./helpers/preorder-shop.ts";
import { header } from "./helpers/smtp-sink.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useTestEnv({ shop: "Notify Shop", smtp: { keepRaw: true }, dataDir: true, worker: true });
const DOMAIN = "notify-shop.platform.local";
let otherKey: string;

beforeAll(async () => {
  await useDomain(env.app.pool, env.shopId, DOMAIN);
  ({ apiKey: otherKey } = await createShopWithKey(env.app.pool, "Other Shop"));
});

const STAGE_VALUES = "stage must be one of: confirmation, shipping_date_change, balance_due, payment_request";

describe("templates of preorder notifications", () => {
  it("answers the shipped default of the locale, its language, else en; customized tells which", async () => {
    const en = await invoke(env.app, "GET", "/preorders/templates/confirmation/en", { key: env.key });
    expect(en.status).toBe(200);
    expect(en.body).toMatchObject({
      stage: "confirmation",
      locale: "en",
      enabled: true,
      email: { subject: "Your preorder {{ order.name }} is confirmed", customized: false, default_locale: "en" },
      sms: { customized: false, default_locale: "en" },
    });
    expect((en.body as { variables: string[] }).variables).toEqual(expect.arrayContaining(["order.name", "delivery.date", "balance.due_date"]));
    const frCa = await invoke(env.app, "GET", "/preorders/templates/shipping_date_change/fr-CA", { key: env.key });
    expect(frCa.body).toMatchObject({ locale: "fr-CA", email: { subject: "Nouvelle date d'expédition pour votre précommande {{ order.name }}", default_locale: "fr" } });
    const ptBr = await invoke(env.app, "GET", "/preorders/templates/balance_due/pt-BR", { key: env.key });
    expect(ptBr.body).toMatchObject({ email: { default_locale: "en", customized: false } });
  });

  it("refuses an unknown stage, a bad locale, unknown fields and templates that do not render (422, one message per field)", async () => {
    expect((await invoke(env.app, "GET", "/preorders/templates/reminder/en", { key: env.key })).body).toEqual({ errors: [STAGE_VALUES] });
    expect((await invoke(env.app, "GET", "/preorders/templates/confirmation/EN_us", { key: env.key })).body).toEqual({ errors: ["locale must be a locale"] });
    const typo = await invoke(env.app, "PATCH", "/preorders/templates/confirmation/en", { key: env.key, body: { email: { subjct: "x" } } });
    expect(typo).toMatchObject({ status: 422, body: { errors: ["email.subjct is not allowed"] } });
    const broken = await invoke(env.app, "PATCH", "/preorders/templates/confirmation/en", {
      key: env.key,
      body: { email: { subject: "{% if order.name %}open", body: "{{ order.name | nofilter }}" }, sms: { body: "{% for i in (1..3000000) %}{% endfor %}" } },
    });
    expect(broken.status).toBe(422);
    const errors = (broken.body as { errors: string[] }).errors;
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatch(/^email\.subject is not a valid template: .+/);
    expect(errors[1]).toMatch(/^email\.body is not a valid template: .*nofilter/);
    expect(errors[2]).toBe("sms.body must render within the memory limit of 1000000 characters or list items");
    const slow = await invoke(env.app, "PATCH", "/preorders/templates/confirmation/en", {
      key: env.key,
      body: { email: { body: "{% for i in (1..10000) %}{% for j in (1..10000) %}{% endfor %}{% endfor %}" } },
    });
    expect(slow.status).toBe(422);
    expect((slow.body as { errors: string[] }).errors[0]).toMatch(/^email\.body must render within /);
    expect((await invoke(env.app, "PATCH", "/preorders/templates/confirmation/en", { key: env.key, body: { email: { body: "  " } } })).body).toEqual({
      errors: ["email.body must not be blank"],
    });
    const { rows } = await env.app.pool.query("select 1 from message_templates where shop_id = $1 and area = 'preorders'", [env.shopId]);
    expect(rows).toHaveLength(0);
  });

  it("saves a locale's own text (the other fields keep the default) and the stage switch", async () => {
    const answer = await invoke(env.app, "PATCH", "/preorders/templates/confirmation/de", { key: env.key, body: { email: { subject: "Danke, {{ order.name }}!" } } });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({
      locale: "de",
      email: { subject: "Danke, {{ order.name }}!", customized: true, default_locale: null },
      sms: { customized: false, default_locale: "de" },
    });
    expect((answer.body as { email: { body: string } }).email.body).toContain("Vorbestellung");
    const other = await invoke(env.app, "GET", "/preorders/templates/confirmation/de", { key: otherKey });
    expect(other.body).toMatchObject({ email: { customized: false } });
  });
});

describe("confirmation", () => {
  it("is written in the shop's default locale while multi_language_enabled is off, whatever the customer's language", async () => {
    const offer = await insertOffer(env.app.pool, env.shopId, {}, "Single language coat");
    const payload = orderPayload({ plan: offer.plan, email: "berta@example.com", locale: "de-DE" });
    const orderId = await placeOrder(env, DOMAIN, "orders/create", payload);
    const [sent] = await settledNotifications(env, orderId, "confirmation");
    // The ledger keeps the customer's locale; the message follows the shop's languages.
    expect(sent).toMatchObject({ locale: "de-DE", status: "sent" });
    expect(env.sink.to("berta@example.com")[0]?.subject).toBe(`Your preorder #${payload.id} is confirmed`);
  });

  it("is e-mailed once when a preorder order arrives, in the customer's language, with the ledger row's id as its message id", async () => {
    const languages = await invoke(env.app, "PATCH", "/account/languages", { key: env.key, body: { multi_language_enabled: true } });
    expect(languages.status).toBe(202);
    const offer = await insertOffer(env.app.pool, env.shopId, { shipping: { delivery: { type: "on_date", date: "2027-02-01T00:00:00.000Z", days: null } } }, "Winter coat");
    const payload = orderPayload({ plan: offer.plan, email: "anna@example.com", locale: "de-DE" });
    const orderId = await placeOrder(env, DOMAIN, "orders/create", payload);
    const [sent] = await settledNotifications(env, orderId, "confirmation");
    expect(sent).toMatchObject({ stage: "confirmation", channel: "email", recipient: "anna@example.com", locale: "de-DE", status: "sent", offer_id: offer.id, attempts: 1 });
    const messages = env.sink.to("anna@example.com");
    expect(messages).toHaveLength(1);
    expect(messages[0]?.subject).toBe(`Danke, #${payload.id}!`);
    expect(messages[0]?.messageId).toContain(sent?.message_id);
    expect(decoded(messages[0]?.raw)).toContain("Winter coat wird am 2027-02-01 versandt");
    expect(header(messages[0]?.raw ?? "", "From")).toContain("Notify Shop");

    // The same order again (paid, and the create delivered twice): nothing more is claimed or sent.
    await placeOrder(env, DOMAIN, "orders/paid", { ...payload, updated_at: new Date(Date.now() + 1000).toISOString() });
    await placeOrder(env, DOMAIN, "orders/create", payload);
    const list = await invoke(env.app, "GET", `/preorders/notifications?order_id=${orderId}`, { key: env.key });
    expect((list.body as { total: number }).total).toBe(1);
    expect(env.sink.to("anna@example.com")).toHaveLength(1);

    const one = await invoke(env.app, "GET", `/preorders/notifications/${sent?.id ?? ""}`, { key: env.key });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: sent?.id, event_key: "", context: {}, status: "sent", order_name: `#${payload.id}` });
    expect((await invoke(env.app, "GET", `/preorders/notifications/${sent?.id ?? ""}`, { key: otherKey })).body).toEqual({
      errors: [`Preorder notification not found: ${sent?.id ?? ""}`],
    });
    expect((await invoke(env.app, "GET", "/preorders/notifications/nope", { key: env.key })).body).toEqual({ errors: ["Preorder notification not found: nope"] });
  });

  it("retries a transient SMTP failure through the job's backoff and sends the same message once", { timeout: 30_000 }, async () => {
    const offer = await insertOffer(env.app.pool, env.shopId);
    env.sink.tempFail.set("flaky@example.com", 1);
    const orderId = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, email: "flaky@example.com" }));
    const [sent] = await waitFor(
      "the retried confirmation",
      async () => {
        const list = await settledNotifications(env, orderId, "confirmation");
        return list[0]?.status === "sent" ? list : undefined;
      },
      25_000,
    );
    expect(sent).toMatchObject({ status: "sent", attempts: 2 });
    expect(env.sink.to("flaky@example.com")).toHaveLength(1);
  });

  it("logs a permanent refusal as failed, with the server's answer, and does not retry it", async () => {
    const offer = await insertOffer(env.app.pool, env.shopId);
    env.sink.reject.add("bounce@example.com");
    const orderId = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, email: "bounce@example.com" }));
    const [failed] = await settledNotifications(env, orderId, "confirmation");
    expect(failed).toMatchObject({ status: "failed", attempts: 1, blocked_reason: null, sent_at: null });
    expect(failed?.error).toMatch(/550/);
    expect(await waitFor("no job left", async () => ((await env.app.pool.query("select 1 from graphile_worker.jobs where key = $1", [`preorders_notification_send:${failed?.id ?? ""}`])).rowCount === 0 ? true : undefined))).toBe(true);
  });

  it("is blocked (logged, not sent) when the stage is off, when the order has no address, and texts a phone when SMS is on", async () => {
    const offer = await insertOffer(env.app.pool, env.shopId);
    expect((await invoke(env.app, "PATCH", "/preorders/templates/confirmation/fr", { key: env.key, body: { enabled: false } })).body).toMatchObject({ enabled: false });
    const off = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, email: "off@example.com" }));
    expect(await settledNotifications(env, off, "confirmation")).toEqual([expect.objectContaining({ status: "blocked", blocked_reason: "stage_disabled" })]);
    expect(env.sink.to("off@example.com")).toHaveLength(0);
    await invoke(env.app, "PATCH", "/preorders/templates/confirmation/en", { key: env.key, body: { enabled: true } });

    const nobody = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, email: null }));
    expect(await settledNotifications(env, nobody, "confirmation")).toEqual([expect.objectContaining({ status: "blocked", blocked_reason: "no_recipient", recipient: null })]);

    const textOnly = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, email: null, phone: "+15555550199" }));
    expect(await settledNotifications(env, textOnly, "confirmation")).toEqual([
      expect.objectContaining({ channel: "sms", status: "blocked", blocked_reason: "channel_disabled", recipient: "+15555550199" }),
    ]);

    const sms = await invoke(env.app, "PATCH", "/preorders/settings", { key: env.key, body: { notifications: { sms: { enabled: true } } } });
    expect(sms.status).toBe(202);
    const both = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, email: "both@example.com", phone: "+15555550142" }));
    const list = await settledNotifications(env, both, "confirmation", 2);
    expect(list.map((n) => [n.channel, n.status]).sort()).toEqual([
      ["email", "sent"],
      ["sms", "sent"],
    ]);
    const text = list.find((n) => n.channel === "sms") as NotificationBody;
    const outbox = path.join(env.dataDir, "outbox");
    const file = (await readdir(outbox)).find((f) => f.includes(text.id) && f.endsWith(".sms.json"));
    expect(file).toBeDefined();
    expect(await readFile(path.join(outbox, file ?? ""), "utf8")).toContain("Notify Shop: Thank you for your preorder");
    await invoke(env.app, "PATCH", "/preorders/settings", { key: env.key, body: { notifications: { sms: { enabled: false } } } });
  });
});

describe("shipping date change", () => {
  it("tells the customers of the offer's open orders when its delivery changes, and only then", async () => {
    const offer = await insertOffer(env.app.pool, env.shopId, { shipping: { delivery: { type: "on_date", date: "2027-03-01T00:00:00.000Z", days: null } } }, "Garden chair");
    const open = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, email: "open@example.com" }));
    const cancelled = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, email: "gone@example.com", cancelled_at: new Date().toISOString() }));
    await settledNotifications(env, open, "confirmation");

    const same = await invoke(env.app, "PATCH", `/preorders/offers/${offer.id}/shipping`, { key: env.key, body: { display: { shipping_text: "Ships in spring." } } });
    expect(same.status).toBe(202);
    const moved = await invoke(env.app, "POST", `/preorders/offers/${offer.id}/shipping/set_delivery_date`, { key: env.key, body: { date: "2027-04-15T00:00:00Z" } });
    expect(moved.status).toBe(202);
    const [notice] = await settledNotifications(env, open, "shipping_date_change");
    expect(notice).toMatchObject({ status: "sent", offer_id: offer.id, recipient: "open@example.com" });
    const mail = env.sink.to("open@example.com").find((m) => m.subject.startsWith("New shipping date"));
    expect(decoded(mail?.raw)).toContain("Garden chair in your preorder");
    expect(decoded(mail?.raw)).toContain("now ships on 2027-04-15 (before: on 2027-03-01)");
    const detail = await invoke(env.app, "GET", `/preorders/notifications/${notice?.id ?? ""}`, { key: env.key });
    expect(detail.body).toMatchObject({
      context: { previous: { type: "on_date", date: "2027-03-01T00:00:00.000Z" }, current: { type: "on_date", date: "2027-04-15T00:00:00.000Z" } },
    });
    // One change, one message: the display change sent nothing, and the cancelled order got nothing.
    const all = await invoke(env.app, "GET", `/preorders/notifications?offer_id=${offer.id}&stage=shipping_date_change`, { key: env.key });
    expect((all.body as { total: number }).total).toBe(1);
    const none = await invoke(env.app, "GET", `/preorders/notifications?order_id=${cancelled}`, { key: env.key });
    expect((none.body as { total: number }).total).toBe(0);

    // Another change is another event: the same order is told again.
    await invoke(env.app, "POST", `/preorders/offers/${offer.id}/shipping/set_delivery_asap`, { key: env.key, body: { days: 10 } });
    const both = await settledNotifications(env, open, "shipping_date_change", 2);
    expect(both.every((n) => n.status === "sent")).toBe(true);
    await waitFor("the second mail", async () => (env.sink.to("open@example.com").some((m) => decoded(m.raw).includes("now ships within 10 days")) ? true : undefined));
  });
});

describe("balance due", () => {
  it("reminds an order that still owes its balance, days_before the due date, and not one paid in full", async () => {
    const offer = await insertOffer(
      env.app.pool,
      env.shopId,
      { payments: { remaining_balance: { due: { type: "on_date", date: new Date(Date.now() + 2 * 86_400_000).toISOString(), days: null } } } },
      "Deposit drop",
    );
    const owing = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, email: "owing@example.com", financial_status: "partially_paid", total_outstanding: "40.00" }));
    const paid = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, email: "paid@example.com" }));
    const [due] = await settledNotifications(env, owing, "balance_due");
    expect(due).toMatchObject({ status: "sent", recipient: "owing@example.com" });
    const mail = env.sink.to("owing@example.com").find((m) => m.subject.startsWith("The balance of your preorder"));
    expect(decoded(mail?.raw)).toContain("remaining balance of 40.00 USD");
    await settledNotifications(env, paid, "confirmation");
    const none = await invoke(env.app, "GET", `/preorders/notifications?order_id=${paid}&stage=balance_due`, { key: env.key });
    expect((none.body as { total: number }).total).toBe(0);
  });
});

describe("GET /preorders/notifications", () => {
  it("lists newest first with paging and filters; refuses bad filters", async () => {
    const page = await invoke(env.app, "GET", "/preorders/notifications?per_page=2", { key: env.key });
    expect(page.status).toBe(200);
    const body = page.body as { notifications: NotificationBody[]; total: number; next_cursor: string | null };
    expect(body.notifications).toHaveLength(2);
    expect(body.next_cursor).not.toBeNull();
    const next = await invoke(env.app, "GET", `/preorders/notifications?per_page=2&cursor=${body.next_cursor ?? ""}`, { key: env.key });
    expect((next.body as { notifications: NotificationBody[] }).notifications[0]?.id).not.toBe(body.notifications[0]?.id);
    const blocked = await invoke(env.app, "GET", "/preorders/notifications?status=blocked", { key: env.key });
    expect((blocked.body as { notifications: NotificationBody[] }).notifications.every((n) => n.status === "blocked")).toBe(true);
    expect((await invoke(env.app, "GET", "/preorders/notifications", { key: otherKey })).body).toMatchObject({ total: 0 });
    const bad = await invoke(env.app, "GET", "/preorders/notifications?stage=initial&order_id=x&status=lost", { key: env.key });
    expect(bad).toMatchObject({
      status: 422,
      body: { errors: ["order_id must be a valid order id", STAGE_VALUES, "status must be one of: pending, sent, failed, blocked"] },
    });
  });
});
