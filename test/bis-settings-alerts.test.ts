import { describe, expect, it } from "vitest";
import { DEFAULT_ALERT_SETTINGS } from "../src/back_in_stock/settings/alerts.ts";
import type { AnyTaskDefinition, TaskContext } from "../src/core/tasks.ts";
import { TaskRegistry } from "../src/core/task-registry.ts";
import { TASKS } from "../tasks/index.ts";
import { invoke } from "./helpers/app.ts";
import { newShop, seedSignups, seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { testPlatformRuntime } from "./helpers/platform.ts";
import type { SinkMessage } from "./helpers/smtp-sink.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useTestEnv({ smtp: true, worker: true });

const PATH = "/back_in_stock/settings/alerts";
const get = (key = env.key) => invoke(env.app, "GET", PATH, { key });
const patch = (body: unknown, key = env.key) => invoke(env.app, "PATCH", PATH, { key, body });

async function stored(shopId = env.shopId): Promise<unknown> {
  const { rows } = await env.app.pool.query<{ alerts: unknown }>("select alerts from bis_settings where shop_id = $1", [shopId]);
  return rows[0]?.alerts;
}

function task(name: string): AnyTaskDefinition {
  const found = TASKS.find((t) => t.name === name);
  if (!found) throw new Error(`no task ${name}`);
  return found;
}

function ctx(): TaskContext {
  return { pool: env.pool, log: env.log, config: env.config, platform: testPlatformRuntime(), channels: env.channels, workerJobId: "1", attempt: 1, maxAttempts: 1, signal: undefined };
}

/** Runs a crontab task as graphile-worker's crontab would for the tick at `ts`. */
async function tick(name: string, ts: string): Promise<unknown> {
  return task(name).run(ctx(), task(name).payload.parse({ _cron: { ts, backfilled: false } }));
}

/** Waits until no job of the merchant pipeline is queued or running (what the ticks queued has run). */
async function drained(): Promise<void> {
  await waitFor("the merchant jobs ran", async () => {
    const { rows } = await env.pool.query(
      "select 1 from graphile_worker.jobs where task_identifier in ('bis_report_email', 'bis_merchant_message_send') and attempts < max_attempts",
    );
    return rows.length === 0 ? true : undefined;
  });
}

async function ledger(shopId: string): Promise<{ kind: string; event_key: string; recipient: string; status: string }[]> {
  const { rows } = await env.pool.query<{ kind: string; event_key: string; recipient: string; status: string }>(
    "select kind, event_key, recipient, status from bis_merchant_messages where shop_id = $1 order by kind, recipient",
    [shopId],
  );
  return rows;
}

const mail = (to: string): SinkMessage[] => env.sink.to(to);

/** The decoded attachment of a raw multipart/mixed message. */
function attachment(raw: string): { filename: string; content: string } | undefined {
  const match = /Content-Disposition: attachment; filename="([^"]+)"\r\n\r\n([A-Za-z0-9+/=\r\n]+?)\r\n--/.exec(raw);
  if (!match) return undefined;
  return { filename: match[1] ?? "", content: Buffer.from((match[2] ?? "").replace(/\r\n/g, ""), "base64").toString("utf8") };
}

describe("GET and PATCH /back_in_stock/settings/alerts", () => {
  it("answers the defaults: every e-mail off, no recipients, UTC", async () => {
    const answer = await get();
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(DEFAULT_ALERT_SETTINGS);
    expect(answer.body).toMatchObject({
      time_zone: "UTC",
      merchant_alerts: { recipients: [], signup_threshold: { enabled: false, threshold: 25 }, alert_run_finished: { enabled: false } },
      daily_summary: { enabled: false, recipients: [], hour: 8 },
      weekly_summary: { enabled: false, recipients: [], weekday: "monday", hour: 8 },
      weekly_csv: { enabled: false, recipients: [], report: "products_in_demand", weekday: "monday", hour: 8 },
    });
    // The other back-in-stock settings do not carry them.
    const whole = (await invoke(env.app, "GET", "/back_in_stock/settings", { key: env.key })).body as Record<string, unknown>;
    expect(whole.daily_summary).toBeUndefined();
  });

  it("refuses invalid fields with one clear message each, and saves nothing", async () => {
    const before = await stored();
    const eleven = Array.from({ length: 11 }, (_, i) => `r${i}@example.com`);
    const answer = await patch({
      time_zone: "Mars/Olympus",
      daily_summary: { recipients: ["not-an-address"], hour: 24 },
      weekly_summary: { weekday: "funday", recipients: eleven },
      weekly_csv: { report: "everything" },
      merchant_alerts: { signup_threshold: { threshold: 0 } },
      monthly_summary: { enabled: true },
    });
    expect(answer.status).toBe(422);
    expect((answer.body as { errors: string[] }).errors.sort()).toEqual(
      [
        "time_zone must be an IANA time zone name, e.g. Europe/Paris or UTC",
        "daily_summary.recipients.0 must be a valid email",
        "daily_summary.hour must be at most 23",
        "weekly_summary.weekday must be one of: monday, tuesday, wednesday, thursday, friday, saturday, sunday",
        "weekly_summary.recipients must contain at most 10 items",
        "weekly_csv.report must be one of: summary, signups, notifications, conversions, products_in_demand",
        "merchant_alerts.signup_threshold.threshold must be at least 1",
        "monthly_summary is not allowed",
      ].sort(),
    );
    const crossField = await patch({
      daily_summary: { enabled: true },
      weekly_csv: { recipients: ["a@example.com", "A@example.com"] },
      merchant_alerts: { alert_run_finished: { enabled: true } },
    });
    expect(crossField.status).toBe(422);
    expect((crossField.body as { errors: string[] }).errors.sort()).toEqual(
      [
        "daily_summary.recipients must contain at least 1 item while the e-mail is enabled",
        "merchant_alerts.recipients must contain at least 1 item while the e-mail is enabled",
        "weekly_csv.recipients.1 is already in the list",
      ].sort(),
    );
    expect((await patch({ daily_summary: { hour: null } })).body).toEqual({ errors: ["daily_summary.hour must be a number"] });
    expect(await stored()).toEqual(before);
  });

  it("merges a deep-partial PATCH (a list replaced whole) and answers the complete settings", async () => {
    const answer = await patch({ time_zone: "Europe/Paris", daily_summary: { enabled: true, recipients: ["ops@example.com"] } });
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ ...DEFAULT_ALERT_SETTINGS, time_zone: "Europe/Paris", daily_summary: { enabled: true, recipients: ["ops@example.com"], hour: 8 } });
    const again = await patch({ daily_summary: { recipients: ["team@example.com"] } });
    expect(again.body).toMatchObject({ daily_summary: { enabled: true, recipients: ["team@example.com"], hour: 8 } });
    expect(await stored()).toEqual({ time_zone: "Europe/Paris", daily_summary: { enabled: true, recipients: ["team@example.com"] } });
    expect((await get()).body).toEqual(again.body);
    expect((await patch({ daily_summary: { enabled: false } })).status).toBe(202);
  });
});

describe("the crontab's scheduled report e-mails", () => {
  // Monday 16 March 2026, 09:05 in Paris (UTC+1): the daily summary (08:00) of Sunday the 15th and
  // the weekly ones (09:00) of the week from Monday the 9th are due.
  const TICK = "2026-03-16T08:05:00.000Z";

  it("is in the crontab", () => {
    const items = new TaskRegistry(TASKS).cronItems().filter((i) => i.task === "bis_report_email_schedule" || i.task === "bis_merchant_alert_scan");
    expect(items.map((i) => i.task).sort()).toEqual(["bis_merchant_alert_scan", "bis_report_email_schedule"]);
  });

  it("sends the due daily summary, weekly summary and weekly CSV to their recipients, once per period, and nothing for a disabled one", async () => {
    const shop = await newShop(env.app, "Report Shop");
    await seedVariants(env.pool, shop.shopId, [{ n: 501, product: 50, productTitle: "Rain Jacket", title: "Blue", price: "80.00" }]);
    await seedSignups(env.pool, shop.shopId, [
      // Sunday 15 March in Paris: in the daily period and the week's
      { variant: 501, product: 50, contact: "c1@example.com", createdAt: "2026-03-15T10:00:00Z" },
      { variant: 501, product: 50, contact: "c2@example.com", createdAt: "2026-03-15T20:00:00Z" },
      // Wednesday 11 March: in the week only
      { variant: 501, product: 50, contact: "c3@example.com", createdAt: "2026-03-11T12:00:00Z" },
      // Monday 16 March 00:30 in Paris: after both periods
      { variant: 501, product: 50, contact: "c4@example.com", createdAt: "2026-03-15T23:30:00Z" },
    ]);
    const settings = await patch(
      {
        time_zone: "Europe/Paris",
        daily_summary: { enabled: true, recipients: ["daily1@example.com", "daily2@example.com"], hour: 8 },
        weekly_summary: { enabled: true, recipients: ["weekly@example.com"], weekday: "monday", hour: 9 },
        weekly_csv: { enabled: true, recipients: ["csv@example.com"], weekday: "monday", hour: 9, report: "products_in_demand" },
      },
      shop.key,
    );
    expect(settings.status).toBe(202);
    const off = await newShop(env.app, "Quiet Shop");
    expect((await patch({ daily_summary: { enabled: false, recipients: ["quiet@example.com"] } }, off.key)).status).toBe(202);

    expect(await tick("bis_report_email_schedule", TICK)).toEqual({ queued: 3 });
    await drained();
    const daily = [...mail("daily1@example.com"), ...mail("daily2@example.com")];
    expect(daily).toHaveLength(2);
    for (const m of daily) {
      expect(m.subject).toBe("Report Shop: back-in-stock daily summary, 2026-03-15 (Europe/Paris)");
      expect(m.raw).toContain("Signups: 2");
    }
    const [weekly] = mail("weekly@example.com");
    expect(mail("weekly@example.com")).toHaveLength(1);
    expect(weekly?.subject).toBe("Report Shop: back-in-stock weekly summary, the 7 days from 2026-03-09 (Europe/Paris)");
    expect(weekly?.raw).toContain("Signups: 3");
    const [csv] = mail("csv@example.com");
    expect(mail("csv@example.com")).toHaveLength(1);
    expect(csv?.raw).toMatch(/Content-Type: multipart\/mixed; boundary=/);
    const file = attachment(csv?.raw ?? "");
    expect(file?.filename).toBe("back-in-stock-products-in-demand-2026-03-09.csv");
    const lines = (file?.content ?? "").trim().split(/\r?\n/);
    // By the header's names: the report's columns are its own (POST /back_in_stock/reports/export makes the same).
    const header = (lines[0] ?? "").split(",");
    expect(header.slice(0, 8)).toEqual(["variant_id", "product_id", "product_title", "variant_title", "sku", "price", "available", "signups"]);
    expect(lines).toHaveLength(2);
    const cells = (lines[1] ?? "").split(",");
    const row = Object.fromEntries(header.map((name, i) => [name, cells[i]]));
    expect(row).toMatchObject({ variant_id: variantGid(501), product_title: "Rain Jacket", variant_title: "Blue", price: "80", signups: "3", waiting: "3", demand_value: "240" });
    expect(mail("quiet@example.com")).toHaveLength(0);
    expect(await ledger(off.shopId)).toEqual([]);
    expect((await ledger(shop.shopId)).map((r) => [r.kind, r.event_key, r.recipient, r.status])).toEqual([
      ["daily_summary", "2026-03-15", "daily1@example.com", "sent"],
      ["daily_summary", "2026-03-15", "daily2@example.com", "sent"],
      ["weekly_csv", "2026-03-09", "csv@example.com", "sent"],
      ["weekly_summary", "2026-03-09", "weekly@example.com", "sent"],
    ]);

    // The same period again, at the same tick and a later one, even with its per-shop job run twice: nothing more.
    expect(await tick("bis_report_email_schedule", TICK)).toEqual({ queued: 0 });
    expect(await tick("bis_report_email_schedule", "2026-03-16T09:55:00.000Z")).toEqual({ queued: 0 });
    await env.pool.query(
      `select graphile_worker.add_job('bis_report_email', json_build_object('shop_id', $1::text, 'kind', 'daily_summary', 'key', '2026-03-15',
         'from', '2026-03-14T23:00:00.000Z', 'to', '2026-03-15T23:00:00.000Z'))`,
      [shop.shopId],
    );
    await drained();
    expect(mail("daily1@example.com")).toHaveLength(1);
    expect(mail("weekly@example.com")).toHaveLength(1);
    expect(mail("csv@example.com")).toHaveLength(1);
    expect(await ledger(shop.shopId)).toHaveLength(4);

    // The next day's daily summary is its own period; the weekly ones are not due on Tuesday.
    expect(await tick("bis_report_email_schedule", "2026-03-17T07:10:00.000Z")).toEqual({ queued: 1 });
    await drained();
    expect(mail("daily1@example.com").map((m) => m.subject)).toEqual([
      "Report Shop: back-in-stock daily summary, 2026-03-15 (Europe/Paris)",
      "Report Shop: back-in-stock daily summary, 2026-03-16 (Europe/Paris)",
    ]);
    expect(mail("daily1@example.com")[1]?.raw).toContain("Signups: 1");

    // Switched off: the next period is not sent.
    expect((await patch({ daily_summary: { enabled: false } }, shop.key)).status).toBe(202);
    expect(await tick("bis_report_email_schedule", "2026-03-18T07:10:00.000Z")).toEqual({ queued: 0 });
    await drained();
    expect(mail("daily1@example.com")).toHaveLength(2);
  });

  it("does not send a period whose hour is more than the catch-up window past", async () => {
    const shop = await newShop(env.app, "Late Shop");
    expect((await patch({ daily_summary: { enabled: true, recipients: ["late@example.com"], hour: 1 } }, shop.key)).status).toBe(202);
    expect(await tick("bis_report_email_schedule", "2026-03-16T08:05:00.000Z")).toEqual({ queued: 0 });
    expect(await tick("bis_report_email_schedule", "2026-03-16T01:05:00.000Z")).toEqual({ queued: 1 });
    await drained();
    expect(mail("late@example.com").map((m) => m.subject)).toEqual(["Late Shop: back-in-stock daily summary, 2026-03-15 (UTC)"]);
  });
});

describe("the crontab's merchant alerts", () => {
  it("e-mails the merchant when a variant's waiting signups reach the threshold, once until the next alert run, and when an alert run ends", async () => {
    const shop = await newShop(env.app, "Alert Shop");
    await seedVariants(env.pool, shop.shopId, [
      { n: 601, product: 60, productTitle: "Wool Hat", title: "Red" },
      { n: 602, product: 60, productTitle: "Wool Hat", title: "Green" },
    ]);
    const now = new Date().toISOString();
    await seedSignups(env.pool, shop.shopId, [
      { variant: 601, product: 60, contact: "w1@example.com", createdAt: now },
      { variant: 601, product: 60, contact: "w2@example.com", createdAt: now },
      { variant: 601, product: 60, contact: "w3@example.com", createdAt: now },
      { variant: 602, product: 60, contact: "w4@example.com", createdAt: now },
    ]);
    // Off: nothing, whatever the counts.
    expect(await tick("bis_merchant_alert_scan", new Date().toISOString())).toEqual({ claimed: 0 });
    expect(
      (await patch({ merchant_alerts: { recipients: ["owner@example.com"], signup_threshold: { enabled: true, threshold: 3 } } }, shop.key)).status,
    ).toBe(202);

    expect(await tick("bis_merchant_alert_scan", new Date().toISOString())).toEqual({ claimed: 1 });
    await drained();
    expect(mail("owner@example.com").map((m) => m.subject)).toEqual(["Alert Shop: 3 customers are waiting for Wool Hat - Red"]);
    // Still above the threshold: not again.
    await seedSignups(env.pool, shop.shopId, [{ variant: 601, product: 60, contact: "w5@example.com", createdAt: now }]);
    expect(await tick("bis_merchant_alert_scan", new Date().toISOString())).toEqual({ claimed: 0 });

    // An alert run of the variant ends (and re-arms its threshold): told once.
    expect((await patch({ merchant_alerts: { alert_run_finished: { enabled: true } } }, shop.key)).status).toBe(202);
    const { rows } = await env.pool.query<{ id: string }>(
      `insert into bis_alert_runs (shop_id, variant_id, status, trigger, stop_reason, batches, notified, finished_at)
       values ($1, $2, 'stopped', 'webhook', 'out_of_stock', 1, 2, now()) returning id`,
      [shop.shopId, variantGid(601)],
    );
    expect(await tick("bis_merchant_alert_scan", new Date().toISOString())).toEqual({ claimed: 2 });
    expect(await tick("bis_merchant_alert_scan", new Date().toISOString())).toEqual({ claimed: 0 });
    await drained();
    const subjects = mail("owner@example.com").map((m) => m.subject);
    expect(subjects).toHaveLength(3);
    expect(subjects).toContain("Alert Shop: restock alerts for Wool Hat - Red stopped");
    expect(subjects.filter((s) => s === "Alert Shop: 4 customers are waiting for Wool Hat - Red")).toHaveLength(1);
    const run = mail("owner@example.com").find((m) => m.subject.includes("stopped"));
    expect(run?.raw).toContain(`Run: ${rows[0]?.id ?? ""}`);
    expect(run?.raw).toContain("Alerted: 2 signups in 1 batches.");
    expect((await ledger(shop.shopId)).every((r) => r.status === "sent")).toBe(true);
  });

  it("records a refused message as failed with the reason", async () => {
    const shop = await newShop(env.app, "Bounce Shop");
    env.sink.reject.add("gone@example.com");
    expect((await patch({ daily_summary: { enabled: true, recipients: ["gone@example.com"], hour: 8 } }, shop.key)).status).toBe(202);
    expect(await tick("bis_report_email_schedule", "2026-03-16T08:05:00.000Z")).toEqual({ queued: 1 });
    await drained();
    const { rows } = await env.pool.query<{ status: string; last_error: string | null; attempts: number }>(
      "select status, last_error, attempts from bis_merchant_messages where shop_id = $1",
      [shop.shopId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "failed", attempts: 1 });
    expect(rows[0]?.last_error).toMatch(/SMTP refused the message: 550/);
  });
});
