import pg from "pg";
import type { Runner } from "graphile-worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { declareJobTask, enqueueJobRow } from "../src/core/jobs.ts";
import { declareTask, defineTask, enqueue } from "../src/core/tasks.ts";
import { sendTask } from "../src/back_in_stock/alerts/deps.ts";
import { pruneJobHistory } from "../src/ops/attempts.ts";
import { relative } from "../src/ops/html.ts";
import { startWorker } from "../src/runtime/worker.ts";
import { seedAlert, seedNotification } from "./helpers/failed-messages.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { type OpsRequest, opsLogin, opsRequest } from "./helpers/ops.ts";
import { testPlatformRuntime } from "./helpers/platform.ts";
import { waitFor } from "./helpers/wait.ts";

/**
 * The console's history (issue 32, decision 0251): every run of a job recorded from
 * graphile-worker's events, kept through a retry and after graphile-worker deleted the job;
 * throughput and the graph over every kind of work; pagination, relative times, links, bulk
 * actions with a confirmed count, search.
 */
const TOKEN = "ops-history-test-token-5b2e71";
const env = useTestEnv({ config: { OPERATOR_TOKEN: TOKEN } });
const request = (path: string, init?: OpsRequest) => opsRequest(env.app.origin, path, init);
const HOSTILE = "<script>alert(1)</script>";

// A task that fails its first two runs (an error with markup in it) and succeeds on the third.
let flakyRuns = 0;
const flakyRef = declareTask({ name: "ops_history_flaky", payload: z.object({ signup_id: z.string() }).passthrough() });
const flaky = defineTask({
  ...flakyRef,
  async run() {
    flakyRuns += 1;
    if (flakyRuns <= 2) throw new Error(`provider said ${HOSTILE} #${flakyRuns}`);
  },
});
const quickRef = declareTask({ name: "ops_history_quick", payload: z.object({ n: z.number() }) });
const quick = defineTask({ ...quickRef, async run() {} });

let runner: Runner;
let workerPool: pg.Pool;

beforeAll(async () => {
  workerPool = new pg.Pool({ connectionString: env.db.url, max: env.config.WORKER_CONCURRENCY * 3 + 5 });
  runner = await startWorker({ pool: workerPool, log: env.log, config: env.config, platform: testPlatformRuntime() }, { pollInterval: 100, cron: false, extraTasks: [flaky, quick] });
});
afterAll(async () => {
  await runner?.stop();
  await workerPool?.end();
});

async function login() {
  return opsLogin(env.app.origin, TOKEN);
}

const post = (path: string, session: { cookie: string; csrf: string }, form: Record<string, string>) =>
  request(path, { method: "POST", cookie: session.cookie, form: { csrf: session.csrf, ...form }, headers: { origin: env.app.origin } });

describe("ops console: every attempt and the finished-jobs history", () => {
  it("keeps every run of a job with its error, time and worker through retries, and lists the job once graphile-worker deleted it", async () => {
    const session = await login();
    const signup = await seedAlert(env.pool, env.shopId, { contact: "history-buyer@example.com", status: "pending" });
    const id = await enqueue(env.pool, flakyRef, { signup_id: signup.signupId }, { maxAttempts: 1 });
    const outcomes = async () =>
      (await env.pool.query<{ attempt: number; outcome: string; error: string | null; worker_id: string | null }>(
        "select attempt, outcome, error, worker_id from job_attempts where queue_job_id = $1 and outcome <> 'running' order by started_at",
        [id],
      )).rows;
    const waitRuns = (n: number) => waitFor(`${n} recorded run(s)`, async () => ((await outcomes()).length >= n ? true : undefined));

    await waitRuns(1);
    // Out of attempts: retried from the console (fresh attempts), it fails again, then succeeds.
    for (const expected of [2, 3]) {
      expect((await post(`/ops/jobs/queue/${id}/retry`, session, {})).status).toBe(303);
      await waitRuns(expected);
    }
    const runs = await outcomes();
    expect(runs.map((r) => [r.attempt, r.outcome])).toEqual([[1, "failed"], [1, "failed"], [1, "completed"]]);
    expect(runs[0]?.error).toBe(`provider said ${HOSTILE} #1`);
    expect(runs[1]?.error).toBe(`provider said ${HOSTILE} #2`);
    expect(runs.every((r) => r.worker_id !== null)).toBe(true);
    await waitFor("graphile-worker deleting the completed job", async () =>
      (await env.pool.query("select 1 from graphile_worker.jobs where id = $1", [id])).rowCount === 0 ? true : undefined,
    );
    await waitFor("the history row", async () => ((await env.pool.query("select 1 from job_history where queue_job_id = $1 and status = 'completed'", [id])).rowCount ? true : undefined));

    // The job's page: from the history, every run (the ones before each retry too), errors escaped.
    const page = await request(`/ops/jobs/queue/${id}`, { cookie: session.cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<strong id="job-status">completed</strong>');
    expect(page.text).toContain('id="from-history"');
    const log = /<table id="attempt-log">([\s\S]*?)<\/table>/.exec(page.text)?.[1] ?? "";
    expect(log.match(/data-outcome="failed"/g)?.length).toBe(2);
    expect(log.match(/data-outcome="completed"/g)?.length).toBe(1);
    expect(log.match(/class="retry-mark"/g)?.length).toBe(2);
    expect(log).toContain("provider said &lt;script&gt;alert(1)&lt;/script&gt; #1");
    expect(page.text).not.toContain(HOSTILE);
    // Times are relative with the exact time on hover.
    expect(log).toMatch(/<time datetime="[^"]+Z" title="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ">[^<]*(ago|just now)<\/time>/);
    // Its payload's signup is a link to the signup's page, which links back to the job.
    expect(page.text).toContain(`href="/ops/signups/${signup.signupId}"`);
    const signupPage = await request(`/ops/signups/${signup.signupId}`, { cookie: session.cookie });
    expect(signupPage.status).toBe(200);
    expect(signupPage.text).toContain(`href="/ops/jobs/queue/${id}"`);
    expect(signupPage.text).toContain("history-buyer@example.com");

    // Listed and searched as a finished job: by status, by payload id, by error text.
    const listed = JSON.parse((await request(`/ops/api/jobs?source=queue&status=completed&task=ops_history_flaky`, { cookie: session.cookie })).text) as { jobs: { id: string; status: string; shop_id: string | null }[] };
    expect(listed.jobs).toEqual([expect.objectContaining({ id, status: "completed", shop_id: env.shopId })]);
    for (const q of [signup.signupId, "history-buyer@example", "provider said"]) {
      const found = JSON.parse((await request(`/ops/api/jobs?q=${encodeURIComponent(q)}`, { cookie: session.cookie })).text) as { jobs: { id: string }[] };
      expect(found.jobs.map((j) => j.id), q).toContain(id);
    }
    const none = JSON.parse((await request(`/ops/api/jobs?q=nothing-matches-this`, { cookie: session.cookie })).text) as { jobs: unknown[] };
    expect(none.jobs).toEqual([]);
  });

  it("keeps an app job's runs from before a retry on its page", async () => {
    const session = await login();
    const { job_id: jobId } = await enqueueJobRow(env.pool, { shopId: env.shopId, task: declareJobTask({ name: "ops_history_app" }) });
    await env.pool.query(
      `insert into job_attempts (id, queue_job_id, app_job_id, task, attempt, max_attempts, worker_id, started_at, finished_at, outcome, error)
       values (gen_random_uuid(), 1, $1, 'ops_history_app', 1, 5, 'worker-a', now() - interval '2 minutes', now() - interval '2 minutes', 'failed', 'first run failed'),
              (gen_random_uuid(), 2, $1, 'ops_history_app', 1, 5, 'worker-b', now() - interval '1 minute', now() - interval '1 minute', 'retrying', 'second run failed')`,
      [jobId],
    );
    const page = await request(`/ops/jobs/app/${jobId}`, { cookie: session.cookie });
    const log = /<table id="attempt-log">([\s\S]*?)<\/table>/.exec(page.text)?.[1] ?? "";
    expect(log).toContain("first run failed");
    expect(log).toContain("second run failed");
    expect(log).toContain("worker-a");
    expect(log).toContain('class="retry-mark"');
  });

  it("prunes attempts and history past JOB_RETENTION_DAYS", async () => {
    await env.pool.query(
      `insert into job_attempts (id, queue_job_id, task, attempt, max_attempts, started_at, finished_at, outcome)
       values (gen_random_uuid(), 900001, 'ops_history_old', 1, 1, now() - interval '40 days', now() - interval '40 days', 'completed')`,
    );
    await env.pool.query(
      `insert into job_history (queue_job_id, task, status, attempts, max_attempts, created_at, finished_at)
       values (900001, 'ops_history_old', 'completed', 1, 1, now() - interval '40 days', now() - interval '40 days'),
              (900002, 'ops_history_recent', 'completed', 1, 1, now(), now())`,
    );
    expect(await pruneJobHistory(env.pool, 30)).toBe(2);
    const left = await env.pool.query<{ queue_job_id: string }>("select queue_job_id::text from job_history where queue_job_id in (900001, 900002)");
    expect(left.rows.map((r) => r.queue_job_id)).toEqual(["900002"]);
    expect(env.config.JOB_RETENTION_DAYS).toBeGreaterThan(0);
  });
});

describe("ops console: throughput and the graph", () => {
  it("counts sends, provider syncs and offer syncs beside the jobs, and draws processed and failed per task over 1 h, 24 h and 7 d", async () => {
    const session = await login();
    const sent = await seedAlert(env.pool, env.shopId, { contact: "sent@example.com", status: "pending" });
    await env.pool.query("update bis_ledger set status = 'sent', sent_at = now() where id = $1", [sent.ledgerId]);
    await seedNotification(env.pool, env.shopId, { recipient: "failed-buyer@example.com", status: "failed", error: "550 refused" });
    await env.pool.query("update preorder_notifications set updated_at = now() where recipient = 'failed-buyer@example.com'");
    await env.pool.query(
      "insert into signup_syncs (signup_id, target, shop_id, status, synced_at) values ($1, 'email_provider_1', $2, 'synced', now())",
      [sent.signupId, env.shopId],
    );
    await env.pool.query(
      `insert into preorder_offers (shop_id, name, status, settings, sync_status, synced_at) values ($1, 'Synced offer', 'enabled', '{}', 'synced', now())`,
      [env.shopId],
    ).catch(async () => {
      // The offer table's required columns differ: mark any existing offer synced instead.
      await env.pool.query("update preorder_offers set synced_at = now() where shop_id = $1", [env.shopId]);
    });
    for (let n = 0; n < 3; n++) await enqueue(env.pool, quickRef, { n });
    await waitFor("three quick runs recorded", async () =>
      Number((await env.pool.query<{ n: string }>("select count(*) as n from job_attempts where task = 'ops_history_quick' and outcome = 'completed'")).rows[0]?.n) >= 3 ? true : undefined,
    );

    const overview = JSON.parse((await request("/ops/api/overview", { cookie: session.cookie })).text) as { throughput: { kind: string; task: string; completed_60m: number; failed_60m: number }[] };
    const row = (task: string) => overview.throughput.find((r) => r.task === task);
    expect(row("ops_history_quick")).toMatchObject({ kind: "job", completed_60m: 3 });
    expect(row("send:back_in_stock")).toMatchObject({ kind: "send", completed_60m: 1 });
    expect(row("send:preorders")).toMatchObject({ kind: "send", failed_60m: 1 });
    expect(row("provider_sync:email_provider_1")).toMatchObject({ kind: "provider_sync", completed_60m: 1 });

    for (const range of ["1h", "24h", "7d"]) {
      const graph = JSON.parse((await request(`/ops/api/graph?range=${range}&task=ops_history_quick`, { cookie: session.cookie })).text) as { range: string; buckets: { processed: number; failed: number }[] };
      expect(graph.range).toBe(range);
      expect(graph.buckets.length).toBeGreaterThan(0);
      expect(graph.buckets.reduce((sum, b) => sum + b.processed, 0)).toBe(3);
    }
    const page = await request("/ops?range=24h", { cookie: session.cookie });
    expect(page.text).toMatch(/<svg id="history-graph" class="graph"[^>]*data-range="24h"/);
    expect(page.text).toContain('<a href="/ops?range=7d#history" data-range="7d">7 d</a>');
    expect(page.text).toContain('data-range="24h" aria-current="true"');
    expect(page.text).not.toMatch(/<script(?! src="\/ops\/static\/ops\.js")/);
    const svg = /<svg id="history-graph"[\s\S]*?<\/svg>/.exec(page.text)?.[0] ?? "";
    const processed = [...svg.matchAll(/data-processed="(\d+)"/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    expect(processed).toBeGreaterThanOrEqual(5);
  });

  it("says a relative time in the largest whole unit", () => {
    const now = Date.parse("2026-01-01T12:00:00Z");
    expect(relative(new Date(now - 3 * 60_000 - 5_000), now)).toBe("3 min ago");
    expect(relative(new Date(now - 2 * 3_600_000), now)).toBe("2 h ago");
    expect(relative(new Date(now + 90_000), now)).toBe("in 1 min");
    expect(relative(new Date(now), now)).toBe("just now");
  });
});

describe("ops console: pages, links, bulk actions and search", () => {
  it("pages every list, keeping the filters", async () => {
    const session = await login();
    const task = declareJobTask({ name: "ops_history_paged" });
    for (let i = 0; i < 55; i++) await enqueueJobRow(env.pool, { shopId: env.shopId, task });
    // App jobs only: each also has its queue row, listed under source=queue.
    const first = await request("/ops/jobs?source=app&task=ops_history_paged", { cookie: session.cookie });
    expect(first.text.match(/<tr data-job-id=/g)?.length).toBe(50);
    expect(first.text).toContain('data-page="1" data-pages="2"');
    expect(first.text).toContain('href="/ops/jobs?source=app&amp;task=ops_history_paged&amp;page=2"');
    const second = await request("/ops/jobs?source=app&task=ops_history_paged&page=2", { cookie: session.cookie });
    expect(second.text.match(/<tr data-job-id=/g)?.length).toBe(5);
    expect(second.text).toContain('data-live="/ops/fragments/jobs?source=app&amp;task=ops_history_paged&amp;page=2"');
    expect(second.text).toContain("51-55 of 55");
  });

  it("retries every failed job of a task in bulk after a confirmation with the count, and cancels in bulk", async () => {
    const session = await login();
    const task = declareTask({ name: "ops_history_bulk", payload: z.object({ n: z.number() }) });
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) ids.push(await enqueue(env.pool, task, { n }));
    await env.pool.query("select graphile_worker.permanently_fail_jobs($1::bigint[], $2)", [ids.slice(0, 2), `bulk ${HOSTILE}`]);

    const confirm = await request("/ops/jobs/bulk?action=retry&task=ops_history_bulk", { cookie: session.cookie });
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('<strong id="bulk-count">2</strong>');
    expect(confirm.text).toContain('<form id="bulk-form" method="post" action="/ops/jobs/bulk">');
    expect(confirm.text).toContain('name="csrf"');
    // Nothing happened on the GET.
    const failed = async () => Number((await env.pool.query<{ n: string }>("select count(*) as n from graphile_worker.jobs where task_identifier = 'ops_history_bulk' and attempts >= max_attempts")).rows[0]?.n);
    expect(await failed()).toBe(2);

    const fields = { action: "retry", task: "ops_history_bulk", status: "failed", count: "2" };
    // Without the CSRF token, or from another origin: refused, nothing retried.
    expect((await request("/ops/jobs/bulk", { method: "POST", cookie: session.cookie, form: fields, headers: { origin: env.app.origin } })).status).toBe(403);
    expect((await request("/ops/jobs/bulk", { method: "POST", cookie: session.cookie, form: { ...fields, csrf: session.csrf }, headers: { origin: "https://evil.example" } })).status).toBe(403);
    // A count that no longer holds: asked again with the new one.
    const stale = await post("/ops/jobs/bulk", session, { ...fields, count: "5" });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('<strong id="bulk-count">2</strong>');
    expect(await failed()).toBe(2);

    const done = await post("/ops/jobs/bulk", session, fields);
    expect(done.status).toBe(303);
    const flash = Buffer.from(decodeURIComponent((done.headers.get("set-cookie") ?? "").split(";")[0]?.split("=")[1] ?? ""), "base64url").toString("utf8");
    expect(flash).toBe("2 job(s) queued again.");
    expect(await failed()).toBe(0);

    // Cancel: the queued ones of the task (no worker runs this task: they stay queued), kept in the history.
    // (The worker of this file knows no ops_history_bulk task: graphile-worker leaves those jobs alone.)
    const cancelConfirm = await request("/ops/jobs/bulk?action=cancel&task=ops_history_bulk", { cookie: session.cookie });
    expect(cancelConfirm.text).toContain('<strong id="bulk-count">3</strong>');
    const cancelled = await post("/ops/jobs/bulk", session, { action: "cancel", task: "ops_history_bulk", count: "3" });
    expect(cancelled.status).toBe(303);
    expect((await env.pool.query("select 1 from graphile_worker.jobs where task_identifier = 'ops_history_bulk'")).rowCount).toBe(0);
    const history = await env.pool.query<{ status: string }>("select status from job_history where queue_job_id = any($1::bigint[])", [ids]);
    expect(history.rows.map((r) => r.status)).toEqual(["cancelled", "cancelled", "cancelled"]);
    const listed = await request("/ops/jobs?task=ops_history_bulk&status=cancelled", { cookie: session.cookie });
    expect(listed.text.match(/<tr data-job-id=/g)?.length).toBe(3);
  });

  it("links a job to its shop's page, which lists the shop's recent jobs; a failed message to its order and its send job", async () => {
    const session = await login();
    const { job_id: jobId } = await enqueueJobRow(env.pool, { shopId: env.shopId, task: declareJobTask({ name: "ops_history_linked" }) });
    const list = await request("/ops/jobs?task=ops_history_linked", { cookie: session.cookie });
    expect(list.text).toContain(`<a class="shop-link" href="/ops/shops/${env.shopId}">`);
    const shop = await request(`/ops/shops/${env.shopId}`, { cookie: session.cookie });
    expect(shop.status).toBe(200);
    expect(shop.text).toContain(`href="/ops/jobs/app/${jobId}"`);
    expect(shop.text).not.toContain("platform_access_token");
    expect((await request("/ops/shops/00000000-0000-0000-0000-000000000000", { cookie: session.cookie })).status).toBe(404);
    expect((await request(`/ops/shops/${env.shopId}`)).status).toBe(303);

    const notification = await seedNotification(env.pool, env.shopId, { recipient: "linked-buyer@example.com", status: "failed", error: `550 ${HOSTILE}` });
    const { rows } = await env.pool.query<{ order_id: string }>("select order_id from preorder_notifications where id = $1", [notification]);
    const orderId = rows[0]?.order_id ?? "";
    const messages = await request("/ops/messages?q=linked-buyer", { cookie: session.cookie });
    expect(messages.text).toContain('<strong id="failed-count">1</strong>');
    expect(messages.text).toContain(`href="/ops/orders/${orderId}"`);
    expect(messages.text).toContain(`href="/ops/jobs?source=all&amp;q=${notification}"`);
    expect(messages.text).not.toContain(HOSTILE);
    const order = await request(`/ops/orders/${orderId}`, { cookie: session.cookie });
    expect(order.status).toBe(200);
    expect(order.text).toContain(`href="/ops/messages/${notification}"`);
    const message = await request(`/ops/messages/${notification}`, { cookie: session.cookie });
    expect(message.status).toBe(200);
    expect(message.text).toContain("550 &lt;script&gt;");

    // A send job naming a ledger row links to the message; the search finds both by recipient.
    const alert = await seedAlert(env.pool, env.shopId, { contact: "searched@example.com", status: "failed", error: "mailbox full" });
    const sendId = await enqueue(env.pool, sendTask, { ledger_id: alert.ledgerId });
    // This file's worker runs it (the row is failed: nothing to send, it completes): then listed from the history.
    await waitFor("the send job in the history", async () => ((await env.pool.query("select 1 from job_history where queue_job_id = $1", [sendId])).rowCount ? true : undefined));
    const sendPage = await request(`/ops/jobs/queue/${sendId}`, { cookie: session.cookie });
    expect(sendPage.text).toContain(`href="/ops/messages/${alert.ledgerId}"`);
    const search = await request("/ops/search?q=searched%40example.com", { cookie: session.cookie });
    expect(search.text).toContain(`data-job-id="${sendId}"`);
    expect(search.text).toContain(`data-message-id="${alert.ledgerId}"`);
    const byError = await request("/ops/search?q=mailbox%20full", { cookie: session.cookie });
    expect(byError.text).toContain(`data-message-id="${alert.ledgerId}"`);
  });
});
