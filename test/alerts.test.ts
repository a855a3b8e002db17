import { randomUUID } from "node:crypto";
import { runNextBatchNow } from "./helpers/alert-runs.ts";
import { describe, expect, it } from "vitest";
import { scanReminders } from "../src/back_in_stock/alerts/reminders.ts";
import { alertRunKey, checkInventory } from "../src/back_in_stock/alerts/runs.ts";
import { verifyUnsubscribe } from "../src/back_in_stock/signups/unsubscribe-link.ts";
import { TASKS } from "../tasks/index.ts";
import { TaskRegistry } from "../src/core/task-registry.ts";
import { invoke } from "./helpers/app.ts";
import { type SeedShop as Shop, newShop, seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { TEST_WEBHOOK_SECRET } from "./helpers/platform.ts";
import { header } from "./helpers/smtp-sink.ts";
import { waitFor } from "./helpers/wait.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { deliverWebhook, webhooksProcessed } from "./helpers/webhook-delivery.ts";
import { runNow } from "./helpers/queue.ts";

const env = useTestEnv({ shop: false, smtp: true, dataDir: true, worker: { poolSize: 12, pollInterval: 50 } });

async function enableStage(shop: Shop, stage: string, enabled = true): Promise<void> {
  const answer = await invoke(env.app, "PATCH", `/back_in_stock/templates/${stage}/en`, { key: shop.key, body: { enabled } });
  expect(answer.status).toBe(202);
}

interface SignupSpec {
  contact: string;
  channel?: "email" | "sms";
  consent?: boolean;
  status?: string;
  locale?: string;
  firstName?: string;
}

/** Inserts signups for a variant, each a second older than the next (the first is the oldest). */
async function addSignups(shop: Shop, variant: number, specs: SignupSpec[]): Promise<string[]> {
  const ids: string[] = [];
  let i = 0;
  for (const s of specs) {
    const { rows } = await env.app.pool.query<{ id: string }>(
      `insert into bis_signups (shop_id, variant_id, channel, contact, consent, status, locale, first_name, created_at, unsubscribed_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, now() - interval '1 day' + make_interval(secs => $9), case when $6 = 'unsubscribed' then now() end)
       returning id`,
      [shop.shopId, variantGid(variant), s.channel ?? "email", s.contact, s.consent ?? true, s.status ?? "waiting", s.locale ?? "en", s.firstName ?? null, i++],
    );
    ids.push(rows[0]?.id ?? "");
  }
  return ids;
}

async function webhook(shop: Shop, topic: string, payload: unknown): Promise<void> {
  await deliverWebhook(env.app.origin, topic, payload, shop.domain);
  await webhooksProcessed(env.app.pool, shop.shopId);
}

let clock = 0;
/**
 * An inventory webhook for the variant's item at location 1; each a second newer than the last and
 * than the levels seeded before it (at now()): the mirror ignores a level older than the one it has.
 */
async function setStock(shop: Shop, variant: number, available: number): Promise<void> {
  clock = Math.max(clock, Date.now()) + 1000;
  await webhook(shop, "inventory_levels/update", { inventory_item_id: variant, location_id: 1, available, updated_at: new Date(clock).toISOString() });
}

async function count(sql: string, values: unknown[]): Promise<number> {
  const { rows } = await env.app.pool.query<{ n: number }>(`select count(*)::int as n from (${sql}) t`, values);
  return rows[0]?.n ?? 0;
}

async function ledger(signupId: string, stage = "initial") {
  const { rows } = await env.app.pool.query<{ id: string; status: string; attempts: number; last_error: string | null }>(
    "select id, status, attempts, last_error from bis_ledger where signup_id = $1 and stage = $2",
    [signupId, stage],
  );
  return rows[0];
}

async function statuses(ids: string[]): Promise<string[]> {
  const { rows } = await env.app.pool.query<{ id: string; status: string }>("select id, status from bis_signups where id = any($1::uuid[])", [ids]);
  return ids.map((id) => rows.find((r) => r.id === id)?.status ?? "missing");
}

async function waitForSent(shop: Shop, n: number, stage = "initial"): Promise<void> {
  await waitFor(`${n} ${stage} messages sent`, async () =>
    (await count("select 1 from bis_ledger where shop_id = $1 and stage = $2 and status = 'sent'", [shop.shopId, stage])) >= n ? true : undefined,
  );
}

/** Waits until no batch of the shop's runs is open: each has closed its batch or ended. */
async function waitForBatchClosed(shop: Shop): Promise<void> {
  await waitFor("the alert run's batch to close", async () =>
    (await count("select 1 from bis_alert_runs where shop_id = $1 and status = 'running' and batch_started_at is not null", [shop.shopId])) === 0 ? true : undefined,
  );
}

const email = (shop: string, n: number) => `${shop}-${n}@example.com`;

describe("alert runs", () => {
  it("a restock webhook starts a run: one unit with a multiplier of 2 alerts the two oldest, with a rendered e-mail", async () => {
    const shop = await newShop(env.app, "Run Shop", { delivery: { batch_multiplier: 2, batch_interval_seconds: 3600 } });
    await seedVariants(env.app.pool, shop.shopId, [{ n: 201, product: 20, available: 0, productTitle: "Linen Shirt", title: "Blue / M" }]);
    const ids = await addSignups(
      shop,
      201,
      [1, 2, 3, 4, 5].map((n) => ({ contact: email("run", n), firstName: `Ann${n}` })),
    );
    await setStock(shop, 201, 1);
    await waitForSent(shop, 2);
    // The batch marks its messages sent before it closes (clears batch_started_at, sets next_batch_at):
    // wait for the run row the assertions read, not for the messages alone.
    await waitForBatchClosed(shop);
    const { rows: runs } = await env.app.pool.query<{ status: string; batches: number; notified: number; next_batch_at: Date; batch_started_at: Date | null }>(
      "select status, batches, notified, next_batch_at, batch_started_at from bis_alert_runs where shop_id = $1",
      [shop.shopId],
    );
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: "running", batches: 1, notified: 2, batch_started_at: null });
    expect((runs[0]?.next_batch_at.getTime() ?? 0) - Date.now()).toBeGreaterThan(3500_000);
    expect(await statuses(ids)).toEqual(["notified", "notified", "waiting", "waiting", "waiting"]);
    const received = env.sink.messages.filter((m) => m.to.startsWith("run-"));
    expect(received.map((m) => m.to).sort()).toEqual([email("run", 1), email("run", 2)]);

    // The message: deterministic Message-ID from the ledger row, subject, html and text parts, unsubscribe link and header.
    const first = await ledger(ids[0] ?? "");
    const message = env.sink.to(email("run", 1))[0];
    if (!message || !first) throw new Error("no message");
    expect(message.messageId).toBe(`<${first.id}@localhost>`);
    expect(message.subject).toBe("Linen Shirt is back in stock");
    expect(header(message.raw, "From")).toContain("Run Shop");
    expect(message.raw).toMatch(/multipart\/alternative/);
    expect(message.raw).toMatch(/text\/plain/);
    expect(message.raw).toMatch(/text\/html/);
    expect(message.raw).toContain("Ann1");
    const listUnsubscribe = header(message.raw, "List-Unsubscribe") ?? "";
    const link = new URL(/<([^>]+)>/.exec(listUnsubscribe)?.[1] ?? "");
    expect(link.pathname).toBe("/back_in_stock/unsubscribe");
    expect(link.searchParams.get("signup")).toBe(ids[0]);
    expect(verifyUnsubscribe(TEST_WEBHOOK_SECRET, ids[0] ?? "", link.searchParams.get("sig") ?? undefined)).toBe(true);
    expect(header(message.raw, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");

    const log = await env.app.pool.query<{ status: string; provider_message_id: string }>(
      "select status, provider_message_id from bis_notifications where shop_id = $1 order by id",
      [shop.shopId],
    );
    expect(log.rows.map((r) => r.status)).toEqual(["sent", "sent"]);
    expect(log.rows.map((r) => r.provider_message_id)).toContain(`<${first.id}@localhost>`);
  });

  it("stock flapping (0, 5, 0, 5): no signup gets a second initial alert, a new restock starts a new run at the next oldest", async () => {
    const shop = await newShop(env.app, "Flap Shop", { delivery: { batch_multiplier: 1, batch_interval_seconds: 3600 } });
    await seedVariants(env.app.pool, shop.shopId, [{ n: 301, product: 30, available: 0 }]);
    const ids = await addSignups(
      shop,
      301,
      Array.from({ length: 20 }, (_, i) => ({ contact: email("flap", i + 1) })),
    );
    const key = alertRunKey(shop.shopId, variantGid(301));

    await setStock(shop, 301, 5);
    await waitForSent(shop, 5);
    await setStock(shop, 301, 0);
    // The run waits an hour for its next batch; bring that batch forward: it finds no stock and stops.
    await runNextBatchNow(env.app.pool, shop.shopId, key);
    await waitFor("the run to stop", async () => {
      const { rows } = await env.app.pool.query<{ stop_reason: string }>("select stop_reason from bis_alert_runs where shop_id = $1 and status = 'stopped'", [shop.shopId]);
      return rows[0];
    }).then((run) => expect(run.stop_reason).toBe("out_of_stock"));

    await setStock(shop, 301, 5);
    await waitForSent(shop, 10);
    // The batch marks its messages sent before it closes and schedules the next one.
    await waitForBatchClosed(shop);
    // Flapping again while the new run waits between batches: nothing is sent early, the batch keeps its time.
    await setStock(shop, 301, 0);
    await setStock(shop, 301, 5);
    const { rows: jobs } = await env.app.pool.query<{ delay_s: number }>(
      "select extract(epoch from run_at - now())::float8 as delay_s from graphile_worker.jobs where key = $1",
      [key],
    );
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.delay_s).toBeGreaterThan(3000);

    expect(await count("select 1 from bis_ledger where shop_id = $1", [shop.shopId])).toBe(10);
    const received = env.sink.messages.filter((m) => m.to.startsWith("flap-"));
    expect(received).toHaveLength(10);
    expect(new Set(received.map((m) => m.to)).size).toBe(10);
    expect(received.map((m) => m.to).sort()).toEqual(ids.slice(0, 10).map((_, i) => email("flap", i + 1)).sort());
    expect(await statuses(ids)).toEqual([...Array<string>(10).fill("notified"), ...Array<string>(10).fill("waiting")]);
    const { rows: runs } = await env.app.pool.query<{ status: string; notified: number }>(
      "select status, notified from bis_alert_runs where shop_id = $1 order by started_at",
      [shop.shopId],
    );
    expect(runs).toEqual([
      { status: "stopped", notified: 5 },
      { status: "running", notified: 5 },
    ]);
  });

  it("never sends to unsubscribed, opted-out, switched-off-channel or other shops' signups; notify refuses them with a logged reason", async () => {
    const shop = await newShop(env.app, "Careful Shop", { compliance: { opt_in_required: true }, channels: { sms: { enabled: false } }, delivery: { batch_multiplier: 10 } });
    const other = await newShop(env.app, "Neighbour Shop");
    await seedVariants(env.app.pool, shop.shopId, [{ n: 401, product: 40, available: 0 }]);
    await seedVariants(env.app.pool, other.shopId, [{ n: 401, product: 40, available: 0 }]);
    const [ok, unsubscribed, noConsent, sms] = await addSignups(shop, 401, [
      { contact: "careful-ok@example.com" },
      { contact: "careful-unsub@example.com", status: "unsubscribed" },
      { contact: "careful-noconsent@example.com", consent: false },
      { contact: "+15555550100", channel: "sms" },
    ]);
    const [neighbour] = await addSignups(other, 401, [{ contact: "neighbour@example.com" }]);
    await setStock(shop, 401, 10);
    await waitForSent(shop, 1);
    await waitFor("the run to complete", async () =>
      (await count("select 1 from bis_alert_runs where shop_id = $1 and status = 'completed'", [shop.shopId])) === 1 ? true : undefined,
    );
    expect(env.sink.to("careful-ok@example.com")).toHaveLength(1);
    expect(env.sink.messages.filter((m) => m.to.startsWith("careful-") && m.to !== "careful-ok@example.com")).toHaveLength(0);
    expect(env.sink.to("neighbour@example.com")).toHaveLength(0);
    expect(await statuses([ok ?? "", unsubscribed ?? "", noConsent ?? "", sms ?? "", neighbour ?? ""])).toEqual([
      "notified",
      "unsubscribed",
      "waiting",
      "waiting",
      "waiting",
    ]);

    const refusals: [string | undefined, string][] = [
      [unsubscribed, "unsubscribed"],
      [noConsent, "opt_in_missing"],
      [sms, "channel_disabled"],
    ];
    for (const [id, reason] of refusals) {
      const answer = await invoke(env.app, "POST", `/back_in_stock/signups/${id}/notify`, { key: shop.key });
      expect(answer.status).toBe(409);
      expect((answer.body as { errors: string[] }).errors[0]).toContain(`(${reason})`);
    }
    const again = await invoke(env.app, "POST", `/back_in_stock/signups/${ok}/notify`, { key: shop.key });
    expect(again.status).toBe(409);
    expect((again.body as { errors: string[] }).errors[0]).toMatch(/already had its initial alert/);
    const foreign = await invoke(env.app, "POST", `/back_in_stock/signups/${neighbour}/notify`, { key: shop.key });
    expect(foreign.status).toBe(404);

    const log = await invoke(env.app, "GET", "/back_in_stock/notifications?status=blocked", { key: shop.key });
    expect(log.status).toBe(200);
    const blocked = (log.body as { notifications: { signup_id: string; blocked_reason: string; message_id: string | null }[] }).notifications;
    expect(blocked.map((n) => [n.signup_id, n.blocked_reason]).sort()).toEqual(refusals.map(([id, reason]) => [id, reason]).sort());
    expect(blocked.every((n) => n.message_id === null)).toBe(true);
    expect(await count("select 1 from bis_ledger where shop_id = $1", [shop.shopId])).toBe(1);
  });

  it("a provider failing three times then succeeding ends with one sent message; one failure never resends the others", async () => {
    const shop = await newShop(env.app, "Flaky Shop", { delivery: { batch_multiplier: 10, batch_interval_seconds: 3600 } });
    await seedVariants(env.app.pool, shop.shopId, [{ n: 501, product: 50, available: 0 }]);
    const [first, flaky, refused, last] = await addSignups(shop, 501, [
      { contact: "flaky-a@example.com" },
      { contact: "flaky-b@example.com" },
      { contact: "flaky-refused@example.com" },
      { contact: "flaky-c@example.com" },
    ]);
    env.sink.tempFail.set("flaky-b@example.com", 3);
    env.sink.reject.add("flaky-refused@example.com");
    await setStock(shop, 501, 4);
    await waitForSent(shop, 2);
    const row = await waitFor("the flaky message to wait for its retry", async () => {
      const l = await ledger(flaky ?? "");
      return l && l.attempts >= 1 ? l : undefined;
    });
    expect(row.status).toBe("pending");
    // Not accepted yet: the signup reads pending with the last error, not notified.
    const waiting = await invoke(env.app, "GET", `/back_in_stock/signups/${flaky}`, { key: shop.key });
    expect(waiting.body).toMatchObject({ status: "pending", notified_at: null });
    expect((waiting.body as { last_error: string | null }).last_error).toMatch(/4\d\d|SMTP/);
    // Bring each retry forward instead of waiting out graphile-worker's backoff.
    const sent = await waitFor("the flaky message to be sent", async () => {
      await runNow(env.app.pool, `bis_send:${row.id}`);
      const l = await ledger(flaky ?? "");
      return l?.status === "sent" ? l : undefined;
    });
    expect(sent.attempts).toBe(4);
    expect(env.sink.to("flaky-b@example.com")).toHaveLength(1);
    expect(env.sink.to("flaky-a@example.com")).toHaveLength(1);
    expect(env.sink.to("flaky-c@example.com")).toHaveLength(1);
    const { rows: log } = await env.app.pool.query<{ signup_id: string; status: string; error: string | null }>(
      "select signup_id, status, error from bis_notifications where shop_id = $1",
      [shop.shopId],
    );
    expect(log.filter((n) => n.signup_id === flaky)).toEqual([{ signup_id: flaky, status: "sent", error: null }]);
    expect(log.filter((n) => n.signup_id === first || n.signup_id === last).map((n) => n.status)).toEqual(["sent", "sent"]);
    // A permanent refusal (550) is not retried: failed at once, with the provider's reason.
    const failed = log.filter((n) => n.signup_id === refused);
    expect(failed).toHaveLength(1);
    expect(failed[0]?.status).toBe("failed");
    expect(failed[0]?.error).toMatch(/550|No such user/);
    expect((await ledger(refused ?? ""))?.status).toBe("failed");
  });

  it("the periodic inventory check starts a run for stock no webhook announced", async () => {
    const shop = await newShop(env.app, "Check Shop", { delivery: { batch_multiplier: 1, minimum_restock_quantity: 2 } });
    await seedVariants(env.app.pool, shop.shopId, [
      { n: 1001, product: 100, available: 3 },
      { n: 1002, product: 100, available: 1 },
    ]);
    await addSignups(shop, 1001, [{ contact: "check-1@example.com" }, { contact: "check-2@example.com" }, { contact: "check-3@example.com" }, { contact: "check-4@example.com" }]);
    await addSignups(shop, 1002, [{ contact: "check-below@example.com" }]);
    const result = await checkInventory(env.app.pool);
    expect(result.runs_requested).toBe(1);
    await waitForSent(shop, 3);
    expect(env.sink.messages.filter((m) => m.to.startsWith("check-")).map((m) => m.to).sort()).toEqual([
      "check-1@example.com",
      "check-2@example.com",
      "check-3@example.com",
    ]);
  });
});

describe("on demand", () => {
  it("notify sends one signup its initial alert now; a second notify is 409; bulk_notify by ids and by variant answers a job", async () => {
    const shop = await newShop(env.app, "Demand Shop");
    await seedVariants(env.app.pool, shop.shopId, [{ n: 801, product: 80, available: 0 }]);
    const [a, b, c, d] = await addSignups(shop, 801, [
      { contact: "demand-a@example.com" },
      { contact: "demand-b@example.com" },
      { contact: "demand-c@example.com" },
      { contact: "demand-d@example.com" },
    ]);
    const notify = await invoke(env.app, "POST", `/back_in_stock/signups/${a}/notify`, { key: shop.key });
    expect(notify.status).toBe(202);
    const message = notify.body as { message_id: string; status: string; stage: string };
    expect(message).toMatchObject({ signup_id: a, stage: "initial", channel: "email", status: "pending" });
    await waitFor("the notify message", async () => (env.sink.to("demand-a@example.com").length === 1 ? true : undefined));
    expect(env.sink.to("demand-a@example.com")[0]?.messageId).toBe(`<${message.message_id}@localhost>`);
    expect((await invoke(env.app, "POST", `/back_in_stock/signups/${a}/notify`, { key: shop.key })).status).toBe(409);

    const bulk = await invoke(env.app, "POST", "/back_in_stock/signups/bulk_notify", { key: shop.key, body: { ids: [a, b, randomUUID()] } });
    expect(bulk.status).toBe(202);
    const { job_id: jobId } = bulk.body as { job_id: string };
    const job = await waitFor("the bulk job", async () => {
      const answer = await invoke(env.app, "GET", `/jobs/${jobId}`, { key: shop.key });
      const body = answer.body as { status: string; result: unknown };
      return body.status === "completed" ? body : undefined;
    });
    expect(job.result).toMatchObject({ requested: 3, not_found: 1, already_notified: 1, blocked: 0, sent: 1, failed: 0 });

    const byVariant = await invoke(env.app, "POST", "/back_in_stock/signups/bulk_notify", { key: shop.key, body: { variant_id: 801 } });
    expect(byVariant.status).toBe(202);
    const variantJob = await waitFor("the variant bulk job", async () => {
      const answer = await invoke(env.app, "GET", `/jobs/${(byVariant.body as { job_id: string }).job_id}`, { key: shop.key });
      const body = answer.body as { status: string; result: unknown };
      return body.status === "completed" ? body : undefined;
    });
    expect(variantJob.result).toMatchObject({ requested: 2, sent: 2 });
    expect(await statuses([a ?? "", b ?? "", c ?? "", d ?? ""])).toEqual(["notified", "notified", "notified", "notified"]);
    for (const x of ["a", "b", "c", "d"]) expect(env.sink.to(`demand-${x}@example.com`)).toHaveLength(1);

    const both = await invoke(env.app, "POST", "/back_in_stock/signups/bulk_notify", { key: shop.key, body: { ids: [a], variant_id: 801 } });
    expect(both.status).toBe(422);
    expect(both.body).toEqual({ errors: ["variant_id is not allowed with ids"] });
    const neither = await invoke(env.app, "POST", "/back_in_stock/signups/bulk_notify", { key: shop.key, body: {} });
    expect(neither.body).toEqual({ errors: ["ids is required (or variant_id)"] });
    const tooMany = await invoke(env.app, "POST", "/back_in_stock/signups/bulk_notify", { key: shop.key, body: { ids: Array.from({ length: 1001 }, () => randomUUID()) } });
    expect(tooMany.body).toEqual({ errors: ["ids must contain at most 1000 items"] });
  });

  it("sends signup_thank_you at signup when that stage is on, once", async () => {
    const shop = await newShop(env.app, "Thanks Shop");
    await seedVariants(env.app.pool, shop.shopId, [{ n: 901, product: 90, available: 0, productTitle: "Wool Cap" }]);
    await enableStage(shop, "signup_thank_you");
    const answer = await invoke(env.app, "POST", "/back_in_stock/signups", {
      key: shop.key,
      body: { variant_id: 901, channel: "email", email: "Thanks@Example.com", consent: true },
    });
    expect(answer.status).toBe(202);
    const signupId = (answer.body as { id: string }).id;
    await waitFor("the thank-you message", async () => (env.sink.to("thanks@example.com").length === 1 ? true : undefined));
    const row = await waitFor("the thank-you marked sent", async () => {
      const l = await ledger(signupId, "signup_thank_you");
      return l?.status === "sent" ? l : undefined;
    });
    expect(env.sink.to("thanks@example.com")[0]?.messageId).toBe(`<${row.id}@localhost>`);
    expect(env.sink.to("thanks@example.com")[0]?.subject).toContain("Wool Cap");
    // The same signup again is the same signup: no second thank-you.
    await invoke(env.app, "POST", "/back_in_stock/signups", { key: shop.key, body: { variant_id: 901, channel: "email", email: "thanks@example.com", consent: true } });
    expect(await count("select 1 from bis_ledger where signup_id = $1", [signupId])).toBe(1);
  });
});

describe("reminders", () => {
  it("go out after the delay only while in stock and not bought, once per signup", async () => {
    const shop = await newShop(env.app, "Remind Shop", { delivery: { batch_multiplier: 10, reminder_delay_hours: 1 } });
    await enableStage(shop, "reminder");
    await seedVariants(env.app.pool, shop.shopId, [
      { n: 601, product: 60, available: 0, productTitle: "Rain Jacket" },
      { n: 602, product: 60, available: 0 },
    ]);
    const [due, bought, recent] = await addSignups(shop, 601, [
      { contact: "remind-due@example.com" },
      { contact: "remind-bought@example.com" },
      { contact: "remind-recent@example.com" },
    ]);
    const [gone] = await addSignups(shop, 602, [{ contact: "remind-gone@example.com" }]);
    await setStock(shop, 601, 5);
    await setStock(shop, 602, 5);
    await waitForSent(shop, 4);
    await setStock(shop, 602, 0);
    await env.app.pool.query("update bis_signups set status = 'converted', converted_at = now() where id = $1", [bought]);
    await env.app.pool.query("update bis_reminder_queue set initial_sent_at = now() - interval '2 hours' where signup_id = any($1::uuid[])", [[due, bought, gone]]);

    const deps = { pool: env.workerPool, log: env.app.log, config: env.app.config, platform: env.platform, channels: env.channels };
    const result = await scanReminders(deps);
    expect(result).toMatchObject({ due: 3, claimed: 1, out_of_stock: 1, dropped: 1 });
    expect(result.sent.sent).toBe(1);
    expect(env.sink.to("remind-due@example.com").map((m) => m.subject)).toEqual(["Rain Jacket is back in stock", "Still available: Rain Jacket"]);
    expect((await ledger(due ?? "", "reminder"))?.status).toBe("sent");
    expect((await ledger(gone ?? "", "reminder"))?.status).toBe("blocked");
    expect(await ledger(bought ?? "", "reminder")).toBeUndefined();
    expect(await ledger(recent ?? "", "reminder")).toBeUndefined();
    const { rows: blocked } = await env.app.pool.query<{ blocked_reason: string }>(
      "select blocked_reason from bis_notifications where signup_id = $1 and stage = 'reminder'",
      [gone],
    );
    expect(blocked).toEqual([{ blocked_reason: "out_of_stock" }]);

    // Once per signup: a later scan, even with everything due, sends no second reminder.
    await env.app.pool.query("update bis_reminder_queue set initial_sent_at = now() - interval '2 hours' where shop_id = $1", [shop.shopId]);
    await env.app.pool.query(
      "insert into bis_reminder_queue (signup_id, shop_id, initial_sent_at) values ($1, $2, now() - interval '2 hours') on conflict do nothing",
      [due, shop.shopId],
    );
    const again = await scanReminders(deps);
    expect(again.claimed).toBe(1); // the recent one, now due
    expect(env.sink.to("remind-due@example.com")).toHaveLength(2);
    expect(env.sink.to("remind-recent@example.com")).toHaveLength(2);
    expect(await count("select 1 from bis_ledger where shop_id = $1 and stage = 'reminder'", [shop.shopId])).toBe(3);
  });

  it("are not scanned while the reminder stage is off", async () => {
    const shop = await newShop(env.app, "Quiet Shop", { delivery: { reminder_delay_hours: 1 } });
    await seedVariants(env.app.pool, shop.shopId, [{ n: 611, product: 61, available: 0 }]);
    const [id] = await addSignups(shop, 611, [{ contact: "quiet@example.com" }]);
    await setStock(shop, 611, 3);
    await waitForSent(shop, 1);
    await env.app.pool.query("update bis_reminder_queue set initial_sent_at = now() - interval '2 hours' where signup_id = $1", [id]);
    await scanReminders({ pool: env.workerPool, log: env.app.log, config: env.app.config, platform: env.platform, channels: env.channels });
    expect(await ledger(id ?? "", "reminder")).toBeUndefined();
    expect(await count("select 1 from bis_reminder_queue where signup_id = $1", [id])).toBe(1);
  });
});

describe("crontab", () => {
  it("scans reminders, checks inventory and recovers what a killed worker left, each coalesced", () => {
    const items = new TaskRegistry(TASKS).cronItems().filter((i) => i.task.startsWith("bis_"));
    expect(items.map((i) => [i.task, i.options.jobKey, i.payload])).toEqual([
      ["bis_reminder_scan", "bis_reminder_scan", {}],
      ["bis_inventory_check", "bis_inventory_check", {}],
      ["bis_alert_recover", "bis_alert_recover", { grace_seconds: 60 }],
      // the merchant's own e-mails (GET/PATCH /back_in_stock/settings/alerts: test/bis-settings-alerts.test.ts)
      ["bis_report_email_schedule", "bis_report_email_schedule", {}],
      ["bis_merchant_alert_scan", "bis_merchant_alert_scan", {}],
      ["bis_merchant_message_recover", "bis_merchant_message_recover", { grace_seconds: 300 }],
    ]);
  });
});

describe("conversions", () => {
  it("an orders/create webhook converts the signups it answers within the attribution window, and ends their reminders", async () => {
    const shop = await newShop(env.app, "Convert Shop", { delivery: { batch_multiplier: 10 } });
    await seedVariants(env.app.pool, shop.shopId, [
      { n: 701, product: 70, available: 0 },
      { n: 702, product: 70, available: 0 },
    ]);
    const [buyer, phoneBuyer, late, otherVariantSameCustomer] = await addSignups(shop, 701, [
      { contact: "convert-buyer@example.com" },
      { contact: "+15555550101", channel: "sms" },
      { contact: "convert-late@example.com" },
      { contact: "convert-x@example.com" },
    ]);
    const [notBought] = await addSignups(shop, 702, [{ contact: "convert-buyer@example.com" }]);
    await setStock(shop, 701, 10);
    await setStock(shop, 702, 10);
    await waitForSent(shop, 5);
    await env.app.pool.query("update bis_signups set notified_at = now() - interval '10 days' where id = $1", [late]);
    const order = {
      id: 555001,
      admin_graphql_api_id: "gid://shopify/Order/555001",
      email: "Convert-Buyer@Example.com",
      created_at: new Date(Date.now() + 60_000).toISOString(),
      updated_at: new Date(Date.now() + 60_000).toISOString(),
      cancelled_at: null,
      customer: { id: 42, email: "convert-buyer@example.com", phone: null, first_name: "B" },
      billing_address: { phone: "+1 (555) 555-0101" },
      line_items: [{ id: 1, variant_id: 701, product_id: 70, quantity: 1, price: "10.00" }],
    };
    await webhook(shop, "orders/create", order);
    expect(await statuses([buyer ?? "", phoneBuyer ?? "", late ?? "", otherVariantSameCustomer ?? "", notBought ?? ""])).toEqual([
      "converted",
      "converted",
      "notified",
      "notified",
      "notified",
    ]);
    const { rows } = await env.app.pool.query<{ converted_order_id: string; converted_at: Date }>("select converted_order_id, converted_at from bis_signups where id = $1", [buyer]);
    expect(rows[0]?.converted_order_id).toBe("gid://shopify/Order/555001");
    expect(rows[0]?.converted_at.toISOString()).toBe(order.created_at);
    expect(await count("select 1 from bis_reminder_queue where signup_id = any($1::uuid[])", [[buyer, phoneBuyer]])).toBe(0);
    expect(await count("select 1 from bis_reminder_queue where signup_id = any($1::uuid[])", [[late, otherVariantSameCustomer, notBought]])).toBe(3);

    // A cancelled order converts nothing; the customer id alone matches.
    await webhook(shop, "orders/create", { ...order, id: 555002, admin_graphql_api_id: "gid://shopify/Order/555002", cancelled_at: order.created_at, email: "convert-x@example.com" });
    expect(await statuses([otherVariantSameCustomer ?? ""])).toEqual(["notified"]);
    await env.app.pool.query("update bis_signups set customer_id = 'gid://shopify/Customer/77' where id = $1", [otherVariantSameCustomer]);
    await webhook(shop, "orders/create", {
      ...order,
      id: 555003,
      admin_graphql_api_id: "gid://shopify/Order/555003",
      email: null,
      customer: { id: 77, email: null, phone: null },
      billing_address: null,
    });
    expect(await statuses([otherVariantSameCustomer ?? ""])).toEqual(["converted"]);
  });
});
