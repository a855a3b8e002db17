import { describe, expect, it } from "vitest";
import { declareJobTask, enqueueJobRow, retryJob } from "../src/core/jobs.ts";
import { declareTask, enqueue } from "../src/core/tasks.ts";
import { sendTask } from "../src/back_in_stock/alerts/deps.ts";
import { tagCustomerTask } from "../src/back_in_stock/signups/tagging.ts";
import { notificationSendTask } from "../src/preorders/notifications/task-refs.ts";
import { providerSyncTask } from "../src/providers/sync/model.ts";
import { LOGIN_MAX_FAILURES, LOGIN_WINDOW_SECONDS, loginClient, pruneLoginFailures } from "../src/ops/login-limit.ts";
import { pruneRevokedSessions } from "../src/ops/sessions.ts";
import { z } from "zod";
import { loadConfig } from "../src/config.ts";
import { withTransaction } from "../src/core/db.ts";
import { startTestApp } from "./helpers/app.ts";
import { cliOutput } from "./helpers/cli.ts";
import { TestClock } from "./helpers/clock.ts";
import { seedAlert, seedNotification } from "./helpers/failed-messages.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { type OpsAnswer, type OpsRequest, opsLogin, opsRequest } from "./helpers/ops.ts";

const TOKEN = "ops-console-http-test-token-71d2";
/** The clock login attempts are counted by: a test that counts them in one window starts a fresh one. */
const clock = new TestClock();
const env = useTestEnv({ config: { OPERATOR_TOKEN: TOKEN }, now: clock.now });

const request = (path: string, init?: OpsRequest): Promise<OpsAnswer> => opsRequest(env.app.origin, path, init);

/** Logs in; the session cookie and the page's CSRF token. */
async function login(): Promise<{ cookie: string; csrf: string }> {
  const { cookie, csrf, setCookie } = await opsLogin(env.app.origin, TOKEN);
  expect(setCookie).toMatch(/HttpOnly/);
  expect(setCookie).toMatch(/SameSite=Strict/);
  return { cookie, csrf };
}

const sameOrigin = () => ({ origin: env.app.origin });

/** A login posted to `origin` (an app of its own, say) with extra request headers. */
const postLogin = (origin: string, token: string, headers: Record<string, string> = {}) =>
  fetch(`${origin}/ops/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({ token }).toString(),
  });

/** A second app on the test database, behind a trusted proxy on loopback (TRUST_PROXY). */
const startProxiedApp = () => startTestApp(env.db.url, { OPERATOR_TOKEN: TOKEN, TRUST_PROXY: "127.0.0.1, ::1" }, { now: clock.now });

describe("ops console: authentication", () => {
  it("sends a visitor without a session to the login page, and refuses the JSON API with 401", async () => {
    const page = await request("/ops");
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/ops/login");
    expect((await request("/ops/jobs")).status).toBe(303);
    expect((await request("/ops/api/jobs")).status).toBe(401);
    const form = await request("/ops/login");
    expect(form.status).toBe(200);
    expect(form.text).toContain('<form id="login"');
    expect(form.text).toContain('name="token"');
    expect(form.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(form.headers.get("content-security-policy")).not.toContain("unsafe-inline");
  });

  it("refuses a wrong token with the error in #login-error, and no cookie", async () => {
    const answer = await request("/ops/login", { method: "POST", form: { token: "not-the-token" } });
    expect(answer.status).toBe(401);
    expect(answer.text).toMatch(/<p id="login-error"[^>]*>Wrong operator token\.<\/p>/);
    expect(answer.headers.get("set-cookie")).toBeNull();
  });

  it(`refuses every login from an address after ${LOGIN_MAX_FAILURES} wrong tokens in a window, the right one included`, async () => {
    await env.pool.query("delete from ops_login_failures"); // the wrong tokens of the tests above
    clock.nextWindow(LOGIN_WINDOW_SECONDS);
    const attempt = (token: string) => request("/ops/login", { method: "POST", form: { token } });
    try {
      for (let i = 0; i < LOGIN_MAX_FAILURES - 1; i++) expect((await attempt(`wrong-token-${i}`)).status).toBe(401);
      // A right token does not use up the budget.
      expect((await attempt(TOKEN)).status).toBe(303);
      expect((await attempt("the-last-wrong-one")).status).toBe(401);
      for (const token of ["wrong-again", TOKEN]) {
        const refused = await attempt(token);
        expect(refused.status, token).toBe(429);
        expect(refused.headers.get("set-cookie")).toBeNull();
        const retryAfter = Number(refused.headers.get("retry-after"));
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(LOGIN_WINDOW_SECONDS);
        expect(refused.text).toMatch(/<p id="login-error"[^>]*>Too many wrong tokens from this address/);
      }
    } finally {
      await env.pool.query("delete from ops_login_failures");
    }
    expect((await attempt(TOKEN)).status).toBe(303);
  });

  it("behind a trusted proxy (TRUST_PROXY), counts per forwarded client address; without it, the header is ignored", async () => {
    await env.pool.query("delete from ops_login_failures");
    clock.nextWindow(LOGIN_WINDOW_SECONDS);
    const proxied = await startProxiedApp();
    const from = (origin: string, client: string, token: string) => postLogin(origin, token, { "x-forwarded-for": client });
    try {
      for (let i = 0; i < LOGIN_MAX_FAILURES; i++) expect((await from(proxied.origin, "203.0.113.5", `wrong-${i}`)).status).toBe(401);
      expect((await from(proxied.origin, "203.0.113.5", TOKEN)).status).toBe(429);
      // Another operator behind the same proxy is not locked out.
      expect((await from(proxied.origin, "203.0.113.6", TOKEN)).status).toBe(303);
      // Not trusted: X-Forwarded-For cannot pick a fresh address for each guess.
      await env.pool.query("delete from ops_login_failures");
      for (let i = 0; i < LOGIN_MAX_FAILURES; i++) expect((await from(env.app.origin, `198.51.100.${i}`, `wrong-${i}`)).status).toBe(401);
      expect((await from(env.app.origin, "198.51.100.200", TOKEN)).status).toBe(429);
    } finally {
      await proxied.close();
      await env.pool.query("delete from ops_login_failures");
    }
    expect(() => loadConfig({ ...process.env, TRUST_PROXY: "10.0.0.0/33" })).toThrow(/TRUST_PROXY/);
  });

  it("refuses a login posted from another site's page before counting it, so such a page cannot lock the operator out", async () => {
    await env.pool.query("delete from ops_login_failures");
    const foreign: Record<string, string>[] = [{ origin: "https://attacker.example" }, { origin: "null" }, { referer: "https://attacker.example/page" }];
    for (let i = 0; i < LOGIN_MAX_FAILURES + 1; i++) {
      const refused = await request("/ops/login", { method: "POST", form: { token: i === 0 ? TOKEN : `cross-site-${i}` }, headers: foreign[i % foreign.length] });
      expect(refused.status).toBe(403);
      expect(refused.headers.get("set-cookie")).toBeNull();
      expect(refused.text).toMatch(/<p id="login-error"[^>]*>Refused: the login did not come from this console/);
    }
    expect((await env.pool.query("select 1 from ops_login_failures")).rowCount).toBe(0);
    // The console's own page (its origin), and a script that names no origin, log in.
    expect((await request("/ops/login", { method: "POST", form: { token: TOKEN }, headers: sameOrigin() })).status).toBe(303);
    expect((await request("/ops/login", { method: "POST", form: { token: TOKEN } })).status).toBe(303);
  });

  it("takes the browser's host from a trusted proxy's X-Forwarded-Host when it judges a login's origin (the proxy may rewrite Host)", async () => {
    const proxied = await startProxiedApp();
    const loginVia = (origin: string) => postLogin(origin, TOKEN, { "x-forwarded-host": "ops.example.com", origin: "https://ops.example.com" });
    try {
      expect((await loginVia(proxied.origin)).status).toBe(303);
      // Not trusted: the header cannot vouch for a foreign origin.
      expect((await loginVia(env.app.origin)).status).toBe(403);
    } finally {
      await proxied.close();
    }
  });

  it("marks the session cookie Secure when the request came over https through a trusted proxy", async () => {
    const proxied = await startProxiedApp();
    const loginOver = (origin: string, proto: string) => postLogin(origin, TOKEN, { "x-forwarded-proto": proto });
    try {
      expect((await loginOver(proxied.origin, "https")).headers.get("set-cookie")).toMatch(/; Secure/);
      expect((await loginOver(proxied.origin, "http")).headers.get("set-cookie")).not.toMatch(/Secure/);
      // Not trusted: the header cannot claim https.
      expect((await loginOver(env.app.origin, "https")).headers.get("set-cookie")).not.toMatch(/Secure/);
    } finally {
      await proxied.close();
    }
  });

  it("counts an IPv6 client by its /64, so a host cannot take a fresh address for every ten guesses", async () => {
    await env.pool.query("delete from ops_login_failures");
    clock.nextWindow(LOGIN_WINDOW_SECONDS);
    const proxied = await startProxiedApp();
    const from = (client: string, token: string) => postLogin(proxied.origin, token, { "x-forwarded-for": client });
    try {
      for (let i = 0; i < LOGIN_MAX_FAILURES; i++) expect((await from(`2001:db8:1:2::${(i + 1).toString(16)}`, `wrong-${i}`)).status).toBe(401);
      expect((await from("2001:db8:1:2:ffff:1:2:3", TOKEN)).status).toBe(429);
      // The next /64 is another client; an IPv4 client mapped into IPv6 is the IPv4 client.
      expect((await from("2001:db8:1:3::1", TOKEN)).status).toBe(303);
      // IPv4 carried in IPv6 (mapped, in any spelling, or NAT64) is its IPv4 client, not one shared /64.
      for (const carried of ["::ffff:192.0.2.7", "0:0:0:0:0:ffff:192.0.2.7", "::ffff:c000:207", "64:ff9b::192.0.2.7", "192.0.2.7"]) expect(loginClient(carried), carried).toBe("192.0.2.7");
      expect(loginClient("2001:0db8:0001:0002:aaaa::")).toBe("2001:db8:1:2::/64");
      expect(loginClient("1:2::3:4:5:1.2.3.4")).toBe("1:2:0:3::/64");
      expect(loginClient("FE80::1%eth0")).toBe("fe80:0:0:0::/64");
    } finally {
      await proxied.close();
      await env.pool.query("delete from ops_login_failures");
    }
  });

  it("maintenance drops the counts of ended windows only", async () => {
    await env.pool.query("delete from ops_login_failures");
    // One transaction: its now() is the same for the rows and the prune, whatever window boundary passes.
    const pruned = await withTransaction(env.pool, async (db) => {
      await db.query(
        `insert into ops_login_failures (client, window_start, failures)
         values ('198.51.100.7', floor(extract(epoch from now()) / $1)::bigint - 1, 10), ('198.51.100.8', floor(extract(epoch from now()) / $1)::bigint, 3)`,
        [LOGIN_WINDOW_SECONDS],
      );
      return pruneLoginFailures(db);
    });
    expect(pruned).toBe(1);
    expect((await env.pool.query("select client from ops_login_failures")).rows).toEqual([{ client: "198.51.100.8" }]);
    await env.pool.query("delete from ops_login_failures");
  });

  it("counts wrong tokens sent in parallel one by one: only the first ten are compared", async () => {
    await env.pool.query("delete from ops_login_failures");
    clock.nextWindow(LOGIN_WINDOW_SECONDS);
    try {
      const answers = await Promise.all(Array.from({ length: 2 * LOGIN_MAX_FAILURES }, (_, i) => request("/ops/login", { method: "POST", form: { token: `parallel-${i}` } })));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses.filter((s) => s === 401)).toHaveLength(LOGIN_MAX_FAILURES);
      expect(statuses.filter((s) => s === 429)).toHaveLength(LOGIN_MAX_FAILURES);
    } finally {
      await env.pool.query("delete from ops_login_failures");
    }
  });

  it("refuses a forged session cookie", async () => {
    const { cookie } = await login();
    const [name, value] = cookie.split("=") as [string, string];
    const [expires, id] = value.split(".");
    const forged = `${name}=${Number(expires) + 1000}.${id}.AAAA`;
    expect((await request("/ops/api/jobs", { cookie: forged })).status).toBe(401);
  });

  it("logs in, shows the nav and logout form, and logs out only with the CSRF token and a same-origin Origin", async () => {
    const { cookie, csrf } = await login();
    const page = await request("/ops", { cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<nav id="ops-nav"><a href="/ops">');
    expect(page.text).toContain('<form id="logout" method="post"');
    expect((await request("/ops/logout", { method: "POST", cookie, form: {}, headers: sameOrigin() })).status).toBe(403);
    expect((await request("/ops/logout", { method: "POST", cookie, form: { csrf }, headers: { origin: "https://evil.example" } })).status).toBe(403);
    expect((await request("/ops/logout", { method: "POST", cookie, form: { csrf } })).status).toBe(403);
    const out = await request("/ops/logout", { method: "POST", cookie, form: { csrf }, headers: sameOrigin() });
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/);
  });

  it("ends the session on the server at logout: a copy of the cookie kept by someone else opens nothing", async () => {
    const { cookie, csrf } = await login();
    const other = await login();
    expect((await request("/ops/logout", { method: "POST", cookie, form: { csrf }, headers: sameOrigin() })).status).toBe(303);
    expect((await request("/ops/api/jobs", { cookie })).status).toBe(401);
    expect((await request("/ops/fragments/overview", { cookie })).status).toBe(401);
    expect((await request("/ops", { cookie })).headers.get("location")).toBe("/ops/login");
    expect((await request(`/ops/jobs/app/${"0".repeat(8)}-0000-0000-0000-${"0".repeat(12)}/retry`, { method: "POST", cookie, form: { csrf }, headers: sameOrigin() })).status).toBe(403);
    // Another session (another login) is not ended by it.
    expect((await request("/ops/api/jobs", { cookie: other.cookie })).status).toBe(200);
    // The revocation is kept until the session would have expired anyway, then pruned.
    const sessionId = cookie.split("=")[1]?.split(".")[1];
    const revoked = async () => (await env.pool.query("select 1 from ops_revoked_sessions where session_id = $1", [sessionId])).rowCount;
    await pruneRevokedSessions(env.pool);
    expect(await revoked()).toBe(1);
    // Kept an hour past the session's expiry (the web process checks expiry by its own clock).
    await env.pool.query("update ops_revoked_sessions set expires_at = now() - interval '59 minutes' where session_id = $1", [sessionId]);
    await pruneRevokedSessions(env.pool);
    expect(await revoked()).toBe(1);
    await env.pool.query("update ops_revoked_sessions set expires_at = now() - interval '61 minutes' where session_id = $1", [sessionId]);
    await pruneRevokedSessions(env.pool);
    expect(await revoked()).toBe(0);
  });
});

describe("ops console: jobs", () => {
  const hostile = `<script>alert("x")</script>`;

  it("lists app jobs and queue rows, filtered by status, task and shop, in HTML and JSON", async () => {
    const { cookie } = await login();
    await env.pool.query("update shops set name = $2 where id = $1", [env.shopId, `Shop ${hostile}`]);
    const appJob = await enqueueJobRow(env.pool, { shopId: env.shopId, task: declareJobTask({ name: "ops_test_app" }), payload: { note: hostile } });
    const plain = declareTask({ name: "ops_test_queue", payload: z.object({ shop_id: z.string() }) });
    await enqueue(env.pool, plain, { shop_id: env.shopId });

    const all = await request("/ops/api/jobs", { cookie });
    expect(all.status).toBe(200);
    const jobs = (JSON.parse(all.text) as { jobs: { source: string; id: string; task: string; status: string; shop_id: string | null }[] }).jobs;
    expect(jobs.find((j) => j.source === "app" && j.id === appJob.job_id)).toMatchObject({ status: "queued", task: "ops_test_app", shop_id: env.shopId });
    expect(jobs.find((j) => j.source === "queue" && j.task === "ops_test_app")).toMatchObject({ status: "queued", shop_id: env.shopId });
    expect(jobs.find((j) => j.source === "queue" && j.task === "ops_test_queue")).toMatchObject({ status: "queued", shop_id: env.shopId });

    const byTask = JSON.parse((await request("/ops/api/jobs?task=ops_test_queue", { cookie })).text) as { jobs: { task: string }[] };
    expect(byTask.jobs.length).toBeGreaterThan(0);
    expect(byTask.jobs.every((j) => j.task === "ops_test_queue")).toBe(true);
    const failed = JSON.parse((await request("/ops/api/jobs?status=failed&task=ops_test_app", { cookie })).text) as { jobs: unknown[] };
    expect(failed.jobs).toEqual([]);
    const otherShop = JSON.parse((await request("/ops/api/jobs?shop=00000000-0000-0000-0000-000000000000", { cookie })).text) as { jobs: unknown[] };
    expect(otherShop.jobs).toEqual([]);
    expect((await request("/ops/api/jobs?status=bogus", { cookie })).status).toBe(400);

    const page = await request("/ops/jobs?task=ops_test_app&refresh=1", { cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<tr data-job-id="${appJob.job_id}" data-source="app">`);
    expect(page.text).toContain('data-refresh="1"');
    expect(page.text).toContain('id="last-refresh"');
    expect(page.text).toContain('<form id="job-filters"');
    expect(page.text).not.toContain(hostile);
    expect(page.text).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");

    const detail = await request(`/ops/jobs/app/${appJob.job_id}`, { cookie });
    expect(detail.status).toBe(200);
    expect(detail.text).toContain('<strong id="job-status">queued</strong>');
    expect(detail.text).not.toContain(hostile);
    expect(detail.text).toContain("&lt;script&gt;");
  });

  it("shows a shop's message sends, provider syncs and tagging under that shop, so a shop filter keeps them", async () => {
    const { cookie } = await login();
    const alert = await seedAlert(env.pool, env.shopId, { contact: "filtered-send@example.com", status: "pending" });
    const notificationId = await seedNotification(env.pool, env.shopId, { recipient: "filtered-buyer@example.com", status: "pending" });
    await enqueue(env.pool, sendTask, { ledger_id: alert.ledgerId });
    await enqueue(env.pool, notificationSendTask, { notification_id: notificationId });
    await enqueue(env.pool, providerSyncTask, { signup_id: alert.signupId, target: "email_provider_1" });
    await enqueue(env.pool, tagCustomerTask, { signup_id: alert.signupId });
    const tasks = ["bis_send", "preorders_notification_send", "provider_sync_signup", "bis_tag_customer"];

    const listed = JSON.parse((await request(`/ops/api/jobs?source=queue&shop=${env.shopId}`, { cookie })).text) as { jobs: { task: string; shop_id: string | null }[] };
    for (const task of tasks) expect(listed.jobs.find((j) => j.task === task), task).toMatchObject({ shop_id: env.shopId });
    const page = await request(`/ops/jobs?task=bis_send&shop=${env.shopId}`, { cookie });
    expect(page.text).toMatch(new RegExp(`<td class="task">bis_send</td><td class="status"><span class="badge status-info"[^>]*>queued</span></td><td class="shop"><a class="shop-link" href="/ops/shops/${env.shopId}">[^<]*${env.shopId}</a></td>`));
    const cli = JSON.parse(await cliOutput(env.db.url, ["jobs", "list", "--source", "queue", "--shop", env.shopId, "--json"])) as { task: string }[];
    expect(tasks.every((task) => cli.some((j) => j.task === task))).toBe(true);
  });

  it("cancels and retries an app job (POST with CSRF), and refuses a POST without the token", async () => {
    const { cookie, csrf } = await login();
    const job = await enqueueJobRow(env.pool, { shopId: env.shopId, task: declareJobTask({ name: "ops_test_cancel" }) });
    const path = `/ops/jobs/app/${job.job_id}`;
    expect((await request(`${path}/cancel`, { method: "POST", cookie, form: {}, headers: sameOrigin() })).status).toBe(403);
    expect((await request(`${path}/cancel`, { method: "POST", cookie, form: { csrf }, headers: { origin: "https://evil.example" } })).status).toBe(403);
    const queueRows = async () => Number((await env.pool.query<{ count: string }>("select count(*) from graphile_worker.jobs where key = $1", [`job:${job.job_id}`])).rows[0]?.count);
    expect(await queueRows()).toBe(1);

    const cancelled = await request(`${path}/cancel`, { method: "POST", cookie, form: { csrf }, headers: sameOrigin() });
    expect(cancelled.status).toBe(303);
    expect(cancelled.headers.get("location")).toBe(path);
    const flashCookie = (cancelled.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect((await env.pool.query<{ status: string }>("select status from jobs where id = $1", [job.job_id])).rows[0]?.status).toBe("cancelled");
    expect(await queueRows()).toBe(0);
    const after = await request(path, { cookie: `${cookie}; ${flashCookie}` });
    expect(after.text).toContain('<strong id="job-status">cancelled</strong>');
    expect(after.text).toMatch(/<p id="flash"[^>]*>Job .* cancelled\.<\/p>/);
    expect(after.text).toMatch(/<form id="cancel"[^>]*hidden/);

    const retried = await request(`${path}/retry`, { method: "POST", cookie, form: { csrf }, headers: { referer: `${env.app.origin}${path}` } });
    expect(retried.status).toBe(303);
    expect((await env.pool.query<{ status: string }>("select status from jobs where id = $1", [job.job_id])).rows[0]?.status).toBe("queued");
    expect(await queueRows()).toBe(1);
  });

  it("retries a failed queue row and cancels (removes) one, kept in the history as cancelled", async () => {
    const { cookie, csrf } = await login();
    const task = declareTask({ name: "ops_test_queue_retry", payload: z.object({}) });
    await enqueue(env.pool, task, {});
    const { rows } = await env.pool.query<{ id: string }>("select id::text from graphile_worker.jobs where task_identifier = 'ops_test_queue_retry'");
    const id = rows[0]?.id ?? "";
    await env.pool.query("select graphile_worker.permanently_fail_jobs(array[$1::bigint], 'boom <b>')", [id]);
    const page = await request(`/ops/jobs/queue/${id}`, { cookie });
    expect(page.text).toContain('<strong id="job-status">failed</strong>');
    expect(page.text).toContain("boom &lt;b&gt;");
    expect((await request(`/ops/jobs/queue/${id}/retry`, { method: "POST", cookie, form: { csrf }, headers: sameOrigin() })).status).toBe(303);
    const json = JSON.parse((await request(`/ops/api/jobs/queue/${id}`, { cookie })).text) as { job: { status: string; attempts: number } };
    expect(json.job).toMatchObject({ status: "queued", attempts: 0 });
    expect((await request(`/ops/jobs/queue/${id}/cancel`, { method: "POST", cookie, form: { csrf }, headers: sameOrigin() })).status).toBe(303);
    expect((await env.pool.query("select 1 from graphile_worker.jobs where id = $1", [id])).rowCount).toBe(0);
    // Gone from the queue, not from the console: the history says what became of it.
    const gone = JSON.parse((await request(`/ops/api/jobs/queue/${id}`, { cookie })).text) as { job: { status: string; from_history: boolean; can_retry: boolean; can_cancel: boolean } };
    expect(gone.job).toMatchObject({ status: "cancelled", from_history: true, can_retry: false, can_cancel: false });
  });

  it("retries an app job's failed queue row only as the app job, which drops the snapshot its first run carried", async () => {
    const { cookie, csrf } = await login();
    const { job_id: jobId } = await enqueueJobRow(env.pool, { shopId: env.shopId, task: declareJobTask({ name: "ops_test_app_retry" }), payload: { n: 1 } });
    const queueRow = async () =>
      (await env.pool.query<{ id: string; attempts: number; payload: Record<string, unknown> }>("select id::text, attempts, payload from graphile_worker._private_jobs where key = $1", [`job:${jobId}`])).rows[0];
    const before = await queueRow();
    expect(before?.payload).toHaveProperty("row");
    // Its last attempt failed, as the worker leaves it: the app job failed, the queue row out of attempts.
    await env.pool.query("select graphile_worker.permanently_fail_jobs(array[$1::bigint], 'boom')", [before?.id]);
    await env.pool.query("update jobs set status = 'failed', attempts = max_attempts, finished_at = now() where id = $1", [jobId]);

    const detail = JSON.parse((await request(`/ops/api/jobs/queue/${before?.id}`, { cookie })).text) as { job: { app_job_id: string; can_retry: boolean } };
    expect(detail.job).toMatchObject({ app_job_id: jobId, can_retry: false });
    expect((await request(`/ops/jobs/queue/${before?.id}`, { cookie })).text).toContain(`<a id="app-job" href="/ops/jobs/app/${jobId}">`);
    // Rescheduled as a queue row, its next run would be a first attempt running from the snapshot,
    // its work done again while the app job stays failed: refused, pointing at the app job.
    const refused = await request(`/ops/jobs/queue/${before?.id}/retry`, { method: "POST", cookie, form: { csrf }, headers: sameOrigin() });
    expect(refused.status).toBe(303);
    const flash = decodeURIComponent((refused.headers.get("set-cookie") ?? "").split(";")[0]?.split("=")[1] ?? "");
    expect(Buffer.from(flash, "base64url").toString("utf8")).toBe(`Queue job ${before?.id} runs app job ${jobId}: retry that job.`);
    expect((await env.pool.query("select attempts >= max_attempts as out from graphile_worker.jobs where key = $1", [`job:${jobId}`])).rows[0]).toEqual({ out: true });

    expect((await request(`/ops/jobs/app/${jobId}/retry`, { method: "POST", cookie, form: { csrf }, headers: sameOrigin() })).status).toBe(303);
    const after = await queueRow();
    expect(after).toMatchObject({ attempts: 0, payload: { job_id: jobId } });
    expect(after?.payload).not.toHaveProperty("row");
  });

  it("does not retry a job cancelled while a worker still runs it, until that run stops", async () => {
    const { cookie, csrf } = await login();
    const { job_id: jobId } = await enqueueJobRow(env.pool, { shopId: env.shopId, task: declareJobTask({ name: "ops_test_cancel_mid_run" }) });
    // A worker holds it, mid-run, when an operator cancels it.
    await env.pool.query("update graphile_worker._private_jobs set locked_at = now(), locked_by = 'ops-test-worker', attempts = 1 where key = $1", [`job:${jobId}`]);
    expect((await request(`/ops/jobs/app/${jobId}/cancel`, { method: "POST", cookie, form: { csrf }, headers: sameOrigin() })).status).toBe(303);
    const status = async () => (await env.pool.query<{ status: string }>("select status from jobs where id = $1", [jobId])).rows[0]?.status;
    expect(await status()).toBe("cancelled");

    const refused = await request(`/ops/jobs/app/${jobId}/retry`, { method: "POST", cookie, form: { csrf }, headers: sameOrigin() });
    const flash = decodeURIComponent((refused.headers.get("set-cookie") ?? "").split(";")[0]?.split("=")[1] ?? "");
    expect(Buffer.from(flash, "base64url").toString("utf8")).toMatch(/still finishing on a worker/);
    expect(await status()).toBe("cancelled");
    expect(await retryJob(env.pool, jobId)).toBeUndefined();
    // graphile-worker's remove_job took the key off the held row: only the held run is left.
    const rows = await env.pool.query<{ key: string | null; locked_by: string }>("select key, locked_by from graphile_worker._private_jobs where payload ->> 'job_id' = $1", [jobId]);
    expect(rows.rows).toEqual([{ key: null, locked_by: "ops-test-worker" }]);

    // The run stops (its worker removes its queue row): now it can be retried.
    await env.pool.query("delete from graphile_worker._private_jobs where payload ->> 'job_id' = $1", [jobId]);
    expect((await request(`/ops/jobs/app/${jobId}/retry`, { method: "POST", cookie, form: { csrf }, headers: sameOrigin() })).status).toBe(303);
    expect(await status()).toBe("queued");
  });

  it("shows the overview's tables and its JSON", async () => {
    const { cookie } = await login();
    const page = await request("/ops", { cookie });
    for (const id of ['table id="queue-depth"', 'table id="throughput"', 'section id="alert-runs"', 'section id="offer-syncs"', 'section id="webhook-lag"', 'section id="failing-providers"']) {
      expect(page.text).toContain(`<${id}`);
    }
    expect(page.text).toMatch(/<tr data-task="ops_test_[a-z_]+">/);
    const json = JSON.parse((await request("/ops/api/overview", { cookie })).text) as { queue_depth: { task: string }[] };
    expect(json.queue_depth.some((r) => r.task.startsWith("ops_test_"))).toBe(true);
  });
});

describe("ops console: live regions", () => {
  it("each page's live region names a fragment that renders the same content, behind the session", async () => {
    const { cookie } = await login();
    const { job_id: jobId } = await enqueueJobRow(env.pool, { shopId: env.shopId, task: declareJobTask({ name: "ops_test_live" }) });
    const pages = [
      { page: "/ops?refresh=2", region: "overview-live", fragment: "/ops/fragments/overview", marker: '<table id="queue-depth"' },
      { page: "/ops/jobs?task=ops_test_live&refresh=2", region: "jobs-live", fragment: "/ops/fragments/jobs?task=ops_test_live", marker: `data-job-id="${jobId}"` },
      { page: `/ops/jobs/app/${jobId}?refresh=2`, region: "job-live", fragment: `/ops/fragments/jobs/app/${jobId}`, marker: '<strong id="job-status">queued</strong>' },
    ];
    for (const { page, region, fragment, marker } of pages) {
      const html = (await request(page, { cookie })).text;
      expect(html, page).toContain(`<div id="${region}" data-live="${fragment.replace(/&/g, "&amp;")}" data-refresh="2">`);
      expect(html, page).toContain(marker);
      const answer = await request(fragment, { cookie });
      expect(answer.status, fragment).toBe(200);
      expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
      expect(answer.text, fragment).toContain(marker);
      expect(answer.text, fragment).not.toContain("<html");
      const anonymous = await request(fragment);
      expect(anonymous.status, fragment).toBe(401);
      expect(anonymous.text).not.toContain(marker);
    }
    // A job that has gone: the region says so (404) rather than keeping stale content.
    const gone = await request("/ops/fragments/jobs/queue/999999999", { cookie });
    expect(gone.status).toBe(404);
    expect(gone.text).toContain("No such job");
    expect((await request("/ops/fragments/jobs?status=bogus", { cookie })).status).toBe(400);
  });
});

describe("ops console: CLI parity", () => {
  /** `npm run cli -- jobs list ...` as a child process on this file's database. */
  const cli = (...args: string[]) => cliOutput(env.db.url, args);

  it("jobs list --source all --json lists the same rows as the console's JSON, queue rows included", async () => {
    const { cookie } = await login();
    await enqueueJobRow(env.pool, { shopId: env.shopId, task: declareJobTask({ name: "ops_test_parity" }) });
    const key = (j: { source: string; id: string; status: string; task: string }) => `${j.source}/${j.id}/${j.status}/${j.task}`;
    const consoleRows = (JSON.parse((await request("/ops/api/jobs", { cookie })).text) as { jobs: { source: string; id: string; status: string; task: string }[] }).jobs;
    const cliRows = JSON.parse(await cli("jobs", "list", "--source", "all", "--limit", "200", "--json")) as { source: string; id: string; status: string; task: string }[];
    expect(cliRows.map(key).sort()).toEqual(consoleRows.map(key).sort());
    expect(cliRows.some((j) => j.source === "queue" && j.task === "ops_test_parity")).toBe(true);
    const queueOnly = JSON.parse(await cli("jobs", "list", "--source", "queue", "--kind", "ops_test_parity", "--json")) as { source: string }[];
    expect(queueOnly.length).toBe(1);
    expect(queueOnly[0]?.source).toBe("queue");
    const table = await cli("jobs", "list", "--source", "queue", "--kind", "ops_test_parity");
    expect(table).toMatch(/^source +id +task/);
  });
});
