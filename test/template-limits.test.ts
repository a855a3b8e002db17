import { Liquid } from "liquidjs";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { sendTask } from "../src/back_in_stock/alerts/deps.ts";
import { claimStage, sendLedgerRows } from "../src/back_in_stock/alerts/ledger.ts";
import type { Channels, ChannelSender, OutboundMessage } from "../src/channels/index.ts";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { testPlatformRuntime } from "./helpers/platform.ts";
import { useTestEnv } from "./helpers/fixture.ts";

/**
 * Liquid templates are merchant input that the service runs: parse, render time and memory are
 * bounded (a template must not freeze every shop), and templates cannot read files.
 */

const env = useTestEnv({ shop: "Liquid Shop" });

beforeAll(async () => {
  await seedVariants(env.app.pool, env.shopId, [{ n: 901, product: 90, available: 5 }]);
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** 10^8 loop iterations: froze the service for 18 s. */
const NESTED_RANGES = "{% for i in (1..10000) %}{% for j in (1..10000) %}{% endfor %}{% endfor %}";
/** Millions of iterations over a small list: allocates next to nothing, only burns time. */
const SLOW_LOOPS = `{% assign a = "${"x".repeat(200)}" | split: "" %}{% for i in a %}{% for j in a %}{% for k in a %}{% endfor %}{% endfor %}{% endfor %}done`;
/** 495 million characters of output in milliseconds: liquidjs bounds neither output nor what a loop writes. */
const HUGE_OUTPUT = `{% for i in (1..5000) %}${"x".repeat(99_000)}{% endfor %}`;
/** A three-million-item list, built in a few milliseconds without the memory limit. */
const BIG_RANGE = "{% for i in (1..3000000) %}{% endfor %}done";

describe("PATCH /back_in_stock/templates refuses templates beyond the limits", () => {
  it("answers 422 naming the field for the nested-loop attack (it no longer freezes the service)", { timeout: 10_000 }, async () => {
    const answer = await invoke(env.app, "PATCH", "/back_in_stock/templates/reminder/de", { key: env.key, body: { email: { body: NESTED_RANGES } } });
    expect(answer.status).toBe(422);
    const { errors } = answer.body as { errors: string[] };
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^email\.body must render within /);
    // Nothing was saved.
    const { rows } = await env.app.pool.query("select 1 from message_templates where shop_id = $1 and area = 'back_in_stock'", [env.shopId]);
    expect(rows).toHaveLength(0);
  });

  it("bounds render time: a slow text-message template and a slow subject are refused, one message per field", { timeout: 10_000 }, async () => {
    const answer = await invoke(env.app, "PATCH", "/back_in_stock/templates/initial/en", {
      key: env.key,
      body: { email: { subject: SLOW_LOOPS }, sms: { body: SLOW_LOOPS } },
    });
    expect(answer.status).toBe(422);
    expect((answer.body as { errors: string[] }).errors).toEqual(["email.subject must render within 100 ms", "sms.body must render within 100 ms"]);
  });

  it("bounds memory: a huge range is refused before it is built", async () => {
    const answer = await invoke(env.app, "PATCH", "/back_in_stock/templates/initial/en", { key: env.key, body: { sms: { body: BIG_RANGE } } });
    expect(answer.status).toBe(422);
    expect((answer.body as { errors: string[] }).errors).toEqual(["sms.body must render within the memory limit of 1000000 characters or list items"]);
  });

  it("bounds output: a loop writing hundreds of megabytes is refused (e-mail body, subject and the e-mail layout, saved or previewed)", async () => {
    const rule = "must render to at most 1000000 characters";
    const body = await invoke(env.app, "PATCH", "/back_in_stock/templates/initial/en", { key: env.key, body: { email: { body: HUGE_OUTPUT } } });
    expect(body.status).toBe(422);
    expect((body.body as { errors: string[] }).errors).toEqual([`email.body ${rule}`]);
    // A subject's source is at most 500 characters: 3,000 times 400 of them.
    const longSubject = `{% for i in (1..3000) %}${"x".repeat(400)}{% endfor %}`;
    const subject = await invoke(env.app, "PATCH", "/back_in_stock/templates/initial/en", { key: env.key, body: { email: { subject: longSubject } } });
    expect((subject.body as { errors: string[] }).errors).toEqual([`email.subject ${rule}`]);
    // A capture doubled in a loop: liquidjs's capture has an emitter of its own, which no limit saw.
    const doubled = "{% capture x %}xxxxxxxxxx{% endcapture %}{% for i in (1..25) %}{% capture x %}{{ x }}{{ x }}{% endcapture %}{% endfor %}{{ x | size }}";
    const captured = await invoke(env.app, "PATCH", "/back_in_stock/templates/initial/en", { key: env.key, body: { sms: { body: doubled } } });
    expect((captured.body as { errors: string[] }).errors).toEqual([`sms.body ${rule}`]);
    const layout = `<html><body>{{ content }}${HUGE_OUTPUT}</body></html>`;
    const saved = await invoke(env.app, "PATCH", "/account/templates/email_layout", { key: env.key, body: { html: layout } });
    expect(saved.status).toBe(422);
    expect((saved.body as { errors: string[] }).errors).toEqual([`html ${rule}`]);
    const preview = await invoke(env.app, "POST", "/account/templates/email_layout/preview", { key: env.key, body: { layout: { html: layout } } });
    expect(preview.status).toBe(422);
    expect((preview.body as { errors: string[] }).errors).toEqual([`layout.html ${rule}`]);
    expect(JSON.stringify(preview.body).length).toBeLessThan(1000);
  });

  it("refuses include, render and layout: a template cannot read the service's files", async () => {
    for (const tag of ["{% include 'package.json' %}", "{% render '.gitignore' %}", "{% layout 'Procfile' %}x"]) {
      const answer = await invoke(env.app, "PATCH", "/back_in_stock/templates/initial/en", { key: env.key, body: { email: { body: tag } } });
      expect(answer.status, tag).toBe(422);
      const { errors } = answer.body as { errors: string[] };
      expect(errors[0]).toMatch(/^email\.body is not a valid template: /);
      expect(errors[0]).not.toMatch(/preorder-bis-api|node_modules|npm run/);
      // What the merchant can do, not the engine's file lookup (issue 31: it leaked `ENOENT: Failed to lookup "x" in "."`).
      const name = /\{% (\w+)/.exec(tag)?.[1] ?? "";
      expect(errors[0]).toMatch(new RegExp(`^email\\.body is not a valid template: \\{% ${name} %\\} is not supported: a template cannot use another template; write that part into this one, line:1, col:1`));
      expect(errors[0]).not.toMatch(/ENOENT|lookup/);
    }
  });

  it("still accepts ordinary templates with loops, filters and every variable", async () => {
    const body = `<p>Hi {{ customer.first_name | default: "there" }},</p>{% for i in (1..50) %}<span>{{ i }}</span>{% endfor %}
<p>{{ product.title | upcase }} {{ variant.title }} {{ variant.price }} <a href="{{ unsubscribe_url }}">x</a></p>`;
    const answer = await invoke(env.app, "PATCH", "/back_in_stock/templates/signup_thank_you/en", { key: env.key, body: { email: { body }, sms: { body: "{{ shop.name }}: {{ product.url }}" } } });
    expect(answer.status).toBe(202);
  });
});

describe("a template beyond the limits at send time (written straight to the database)", () => {
  /** Channels that only record what they are given. */
  function recordingChannels(sent: OutboundMessage[]): Channels {
    const sender = (channel: "email" | "sms"): ChannelSender => ({
      channel,
      async send(message) {
        sent.push(message);
        return { providerMessageId: message.id, accepted: true };
      },
      async close() {},
    });
    const email = sender("email");
    const sms = sender("sms");
    return { email, sms, get: (c) => (c === "email" ? email : sms), async close() {} };
  }

  async function seedTemplate(shop: string, channel: "email" | "sms", body: string): Promise<void> {
    // The signups are German: a de override is the template they get.
    const locale = "de";
    await env.app.pool.query(
      `insert into message_templates (shop_id, area, stage, locale, channel, subject, body) values ($1, 'back_in_stock', 'initial', $2, $3, $4, $5)
       on conflict (shop_id, area, stage, locale, channel) do update set body = excluded.body`,
      [shop, locale, channel, channel === "email" ? "Back: {{ product.title }}" : null, body],
    );
  }

  async function newShopWithSignups(name: string, channel: "email" | "sms", count: number): Promise<{ shop: string; ledgerIds: string[] }> {
    const { shopId: shop } = await createShopWithKey(env.app.pool, name);
    // A shop selling in several languages: its German signups get its German templates.
    await env.app.pool.query("update shops set multi_language_enabled = true where id = $1", [shop]);
    await seedVariants(env.app.pool, shop, [{ n: 902, product: 91, available: 5 }]);
    const signupIds: string[] = [];
    for (let i = 0; i < count; i++) {
      const contact = channel === "email" ? `liquid-${name.replace(/\W/g, "")}-${i}@example.com` : `+1555000${String(i).padStart(4, "0")}`;
      const { rows } = await env.app.pool.query<{ id: string }>(
        "insert into bis_signups (shop_id, variant_id, channel, contact, consent, locale) values ($1, $2, $3, $4, true, 'de') returning id",
        [shop, variantGid(902), channel, contact],
      );
      signupIds.push(rows[0]?.id ?? "");
    }
    const claimed = await claimStage(env.app.pool, shop, signupIds, "initial");
    return { shop, ledgerIds: claimed.map((c) => c.id) };
  }

  async function outcome(ledgerIds: string[]) {
    const { rows: ledger } = await env.app.pool.query<{ status: string; last_error: string | null }>(
      "select status, last_error from bis_ledger where id = any($1::uuid[])",
      [ledgerIds],
    );
    const { rows: log } = await env.app.pool.query<{ status: string; error: string | null }>(
      "select status, error from bis_notifications where ledger_id = any($1::uuid[])",
      [ledgerIds],
    );
    const { rows: jobs } = await env.app.pool.query("select 1 from graphile_worker.jobs where key = any($1::text[])", [
      ledgerIds.map((id) => `${sendTask.name}:${id}`),
    ]);
    return { ledger, log, queuedRetries: jobs.length };
  }

  function deps(sent: OutboundMessage[]) {
    return { pool: env.app.pool, log: env.app.log, config: env.app.config, platform: testPlatformRuntime(), channels: recordingChannels(sent) };
  }

  it("a slow text message is not sent: recorded failed with the reason, not retried, rendered at most twice for the whole batch", { timeout: 20_000 }, async () => {
    const { shop, ledgerIds } = await newShopWithSignups("Slow SMS", "sms", 4);
    await seedTemplate(shop, "sms", SLOW_LOOPS);
    const renders = vi.spyOn(Liquid.prototype, "renderSync");
    const sent: OutboundMessage[] = [];
    const summary = await sendLedgerRows(deps(sent), ledgerIds, { mode: "job" });
    expect(summary).toMatchObject({ sent: 0, failed: 4, retrying: 0 });
    expect(sent).toHaveLength(0);
    // The first over-limit render is confirmed once (a GC pause is not a verdict); the rest of the batch fails without rendering.
    expect(renders.mock.calls.length).toBeLessThanOrEqual(2);
    const { ledger, log, queuedRetries } = await outcome(ledgerIds);
    const reason = "Template did not render: the initial sms.body (de) must render within 100 ms";
    expect(ledger).toEqual(Array.from({ length: 4 }, () => ({ status: "failed", last_error: reason })));
    expect(log).toEqual(Array.from({ length: 4 }, () => ({ status: "failed", error: reason })));
    expect(queuedRetries).toBe(0);
  });

  it("an e-mail body that allocates too much is not sent: recorded failed with the reason", async () => {
    const { shop, ledgerIds } = await newShopWithSignups("Big Mail", "email", 3);
    await seedTemplate(shop, "email", BIG_RANGE);
    const sent: OutboundMessage[] = [];
    const summary = await sendLedgerRows(deps(sent), ledgerIds, { mode: "job" });
    expect(summary).toMatchObject({ sent: 0, failed: 3, retrying: 0 });
    expect(sent).toHaveLength(0);
    const { ledger, log, queuedRetries } = await outcome(ledgerIds);
    const reason = "Template did not render: the initial email.body (de) must render within the memory limit of 1000000 characters or list items";
    expect(ledger.map((r) => r.last_error)).toEqual([reason, reason, reason]);
    expect(log.map((r) => [r.status, r.error])).toEqual([["failed", reason], ["failed", reason], ["failed", reason]]);
    expect(queuedRetries).toBe(0);
  });

  it("an e-mail body that writes too much is not sent: recorded failed with the reason", async () => {
    const { shop, ledgerIds } = await newShopWithSignups("Huge Mail", "email", 2);
    await seedTemplate(shop, "email", HUGE_OUTPUT);
    const sent: OutboundMessage[] = [];
    const summary = await sendLedgerRows(deps(sent), ledgerIds, { mode: "job" });
    expect(summary).toMatchObject({ sent: 0, failed: 2, retrying: 0 });
    expect(sent).toHaveLength(0);
    const { ledger } = await outcome(ledgerIds);
    expect(ledger.map((r) => r.last_error)).toEqual(Array.from({ length: 2 }, () => "Template did not render: the initial email.body (de) must render to at most 1000000 characters"));
  });

  it("a template longer than the parse limit is not sent", async () => {
    const { shop, ledgerIds } = await newShopWithSignups("Long Mail", "email", 1);
    await seedTemplate(shop, "email", `<p>${"x".repeat(100_001)}</p>`);
    const sent: OutboundMessage[] = [];
    expect(await sendLedgerRows(deps(sent), ledgerIds, { mode: "job" })).toMatchObject({ sent: 0, failed: 1 });
    expect(sent).toHaveLength(0);
    const { ledger } = await outcome(ledgerIds);
    expect(ledger[0]?.last_error).toBe("Template did not render: the initial email.body (de) must be at most 100000 characters");
  });

  it("a template that includes a file sends nothing of it", async () => {
    const { shop, ledgerIds } = await newShopWithSignups("Include Mail", "sms", 1);
    await seedTemplate(shop, "sms", "{% include 'package.json' %}");
    const sent: OutboundMessage[] = [];
    expect(await sendLedgerRows(deps(sent), ledgerIds, { mode: "job" })).toMatchObject({ sent: 0, failed: 1 });
    expect(sent).toHaveLength(0);
    const { ledger } = await outcome(ledgerIds);
    expect(ledger[0]?.last_error).toMatch(/^Template did not render: the initial sms\.body \(de\) is not a valid template: \{% include %\} is not supported/);
    expect(ledger[0]?.last_error).not.toMatch(/ENOENT|lookup/);
  });

  it("ordinary templates of the same batch path still send", async () => {
    const { shop, ledgerIds } = await newShopWithSignups("Fine Mail", "email", 2);
    await seedTemplate(shop, "email", "<p>{{ product.title }} is back at {{ shop.name }}</p>");
    const sent: OutboundMessage[] = [];
    expect(await sendLedgerRows(deps(sent), ledgerIds, { mode: "job" })).toMatchObject({ sent: 2, failed: 0 });
    // Each body rendered in full, inside the shop's e-mail layout (on by default).
    expect(sent).toHaveLength(2);
    for (const message of sent) {
      expect(message.html?.split("<p>Product 91 is back at Fine Mail</p>")).toHaveLength(2);
      expect(message.html).toContain("<!DOCTYPE html>");
    }
  });
});
