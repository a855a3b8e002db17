import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./helpers/app.ts";
import { type TestBrowser, browserUnavailable, launchBrowser } from "./helpers/browser.ts";
import { useTestEnv } from "./helpers/fixture.ts";

/**
 * The ops console in a real headless Chromium (Debian's chromium through playwright-core): login,
 * the overview's tables, the job list with its filters, live refresh of the overview, the list and a
 * job's page, a failed job's page with Retry and Cancel, and a cross-origin POST without the CSRF
 * token refused. Without a Chromium on
 * this machine the file is skipped with the reason printed (CI installs one: .ci/run).
 */
const unavailable = browserUnavailable();
if (unavailable) console.warn(`test/ops-console.browser.test.ts skipped: ${unavailable}`);

const TOKEN = "ops-console-test-token-3f1c9a";
const TASK = "bis_signups_bulk_delete";

describe.skipIf(unavailable !== undefined)("ops console in a headless Chromium", () => {
  const env = useTestEnv({ config: { OPERATOR_TOKEN: TOKEN }, dataDir: true });
  let browser: TestBrowser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A job created by an API call (a bulk delete: no worker runs here, so it stays queued). */
  async function bulkJob(): Promise<string> {
    const answer = await api(env.app, "POST", "/back_in_stock/signups/bulk_delete", {
      key: env.key,
      body: { ids: ["00000000-0000-0000-0000-000000000001"] },
    });
    expect(answer.status).toBe(202);
    return (answer.body as { job_id: string }).job_id;
  }

  async function jobStatus(id: string): Promise<string | undefined> {
    const { rows } = await env.pool.query<{ status: string }>("select status from jobs where id = $1", [id]);
    return rows[0]?.status;
  }

  const appRow = (id: string) => page.locator(`table#jobs tr[data-job-id="${id}"][data-source="app"]`);

  it("refuses a wrong token, then logs in with the operator token", async () => {
    await page.goto(`${env.app.origin}/ops`);
    // Not logged in: the console sends the browser to its login page.
    await page.locator("form#login").waitFor();
    expect(new URL(page.url()).pathname).toBe("/ops/login");
    expect(await page.locator("nav#ops-nav").count()).toBe(0);

    await page.fill("form#login input[name=token]", "not-the-token");
    await page.locator("form#login [type=submit]").click();
    await page.locator("#login-error").waitFor();
    expect((await page.locator("#login-error").innerText()).trim()).not.toBe("");
    expect(await page.locator("nav#ops-nav").count()).toBe(0);

    await page.fill("form#login input[name=token]", TOKEN);
    await page.locator("form#login [type=submit]").click();
    await page.locator("nav#ops-nav").waitFor();
    expect(await page.locator("nav#ops-nav a[href='/ops']").count()).toBe(1);
    expect(await page.locator("nav#ops-nav a[href='/ops/jobs']").count()).toBe(1);
    expect(await page.locator("form#logout").getAttribute("method")).toMatch(/post/i);
  });

  it("shows the overview's tables and sections, with a row per queued task", async () => {
    await bulkJob();
    await page.goto(`${env.app.origin}/ops`);
    for (const selector of ["table#queue-depth", "table#throughput", "section#alert-runs", "section#offer-syncs", "section#webhook-lag", "section#failing-providers"]) {
      expect(await page.locator(selector).count(), selector).toBe(1);
    }
    await page.locator(`table#queue-depth tr[data-task="${TASK}"]`).waitFor();
  });

  it("lists a job created by an API call and filters by status, task and shop", async () => {
    const id = await bulkJob();
    await page.goto(`${env.app.origin}/ops/jobs`);
    const row = appRow(id);
    await row.waitFor();
    expect((await row.locator("td.task").innerText()).trim()).toBe(TASK);
    expect((await row.locator("td.status").innerText()).trim()).toBe("queued");
    expect(await row.locator("td.shop").innerText()).toMatch(/Test Shop|[0-9a-f-]{36}/);

    const filter = async (values: { status?: string; task?: string; shop?: string }) => {
      const form = page.locator("form#job-filters");
      await form.locator("select[name=status]").selectOption(values.status ?? "");
      await form.locator("input[name=task]").fill(values.task ?? "");
      await form.locator("input[name=shop]").fill(values.shop ?? "");
      await Promise.all([page.waitForURL((url) => url.pathname === "/ops/jobs" && url.search !== ""), page.evaluate("document.querySelector('form#job-filters').requestSubmit()")]);
      await page.locator("table#jobs").waitFor();
    };

    await filter({ status: "failed" });
    expect(await appRow(id).count()).toBe(0);
    expect(new URL(page.url()).searchParams.get("status")).toBe("failed");

    await filter({ status: "queued", task: TASK });
    await appRow(id).waitFor();
    for (const cell of await page.locator("table#jobs tr[data-job-id] td.task").allInnerTexts()) expect(cell.trim()).toBe(TASK);
    for (const cell of await page.locator("table#jobs tr[data-job-id] td.status").allInnerTexts()) expect(cell.trim()).toBe("queued");

    await filter({ task: "no_such_task" });
    expect(await page.locator("table#jobs tr[data-job-id]").count()).toBe(0);

    await filter({ shop: env.shopId });
    await appRow(id).waitFor();
    await filter({ shop: "00000000-0000-0000-0000-00000000abcd" });
    expect(await appRow(id).count()).toBe(0);
  });

  it("shows a job created after the page loaded without a reload (live refresh)", async () => {
    await page.goto(`${env.app.origin}/ops/jobs?refresh=1`);
    await page.locator("table#jobs").waitFor();
    // A mark on the window: a reload would drop it.
    await page.evaluate("window.opsTestMark = 42");
    const firstRefresh = await page.locator("#last-refresh").innerText();
    const id = await bulkJob();
    await appRow(id).waitFor({ timeout: 20_000 });
    expect(await page.evaluate("window.opsTestMark")).toBe(42);
    expect(await page.locator("#last-refresh").innerText()).not.toBe(firstRefresh);
  });

  it("refreshes the overview without a reload", async () => {
    await page.goto(`${env.app.origin}/ops?refresh=1`);
    await page.locator("table#queue-depth").waitFor();
    await page.evaluate("window.opsTestMark = 7");
    const readyCell = page.locator(`table#queue-depth tr[data-task="${TASK}"] td:nth-child(2)`);
    const ready = async () => ((await readyCell.count()) === 0 ? 0 : Number(await readyCell.innerText()));
    const before = await ready();
    await bulkJob();
    await expect.poll(ready, { timeout: 20_000, interval: 200 }).toBeGreaterThan(before);
    expect(await page.evaluate("window.opsTestMark")).toBe(7);
    // Nothing changed since: the next refreshes leave the region's elements alone (a selection or
    // focus in it survives).
    await page.evaluate("document.querySelector('table#queue-depth').setAttribute('data-test-mark', 'kept')");
    const stamp = page.locator("#last-refresh");
    for (let i = 0; i < 2; i++) {
      const seen = await stamp.innerText();
      await expect.poll(() => stamp.innerText(), { timeout: 10_000, interval: 100 }).not.toBe(seen);
    }
    expect(await page.locator("table#queue-depth").getAttribute("data-test-mark")).toBe("kept");
  });

  it("follows a job's status and errors on its page without a reload", async () => {
    const id = await bulkJob();
    await page.goto(`${env.app.origin}/ops/jobs/app/${id}?refresh=1`);
    expect((await page.locator("#job-status").innerText()).trim()).toBe("queued");
    await page.evaluate("window.opsTestMark = 9");
    await env.pool.query(
      `update jobs set status = 'failed', attempts = max_attempts, finished_at = now(), updated_at = now(),
         errors = jsonb_build_array(jsonb_build_object('attempt', 1, 'message', 'store platform answered 502', 'at', now()))
       where id = $1`,
      [id],
    );
    await env.pool.query("select graphile_worker.remove_job($1)", [`job:${id}`]);
    await expect.poll(async () => (await page.locator("#job-status").innerText()).trim(), { timeout: 20_000, interval: 200 }).toBe("failed");
    expect(await page.locator("#errors").innerText()).toContain("store platform answered 502");
    expect(await page.locator("form#retry button").isVisible()).toBe(true);
    expect(await page.locator("form#cancel button").isVisible()).toBe(false);
    expect(await page.evaluate("window.opsTestMark")).toBe(9);
  });

  it("shows a failed job's errors; Retry puts it back in the queue", async () => {
    const id = await bulkJob();
    // The job failed its last attempt (as the worker records it): errors kept, its queue row gone.
    await env.pool.query(
      `update jobs set status = 'failed', attempts = max_attempts, finished_at = now(), updated_at = now(),
         errors = jsonb_build_array(jsonb_build_object('message', 'provider answered 503 (attempt 1)', 'at', now()),
                                    jsonb_build_object('message', 'provider answered 503 (attempt 2)', 'at', now()))
       where id = $1`,
      [id],
    );
    await env.pool.query("select graphile_worker.remove_job($1)", [`job:${id}`]);

    await page.goto(`${env.app.origin}/ops/jobs/app/${id}`);
    expect((await page.locator("#job-status").innerText()).trim()).toBe("failed");
    const errors = await page.locator("#errors").innerText();
    expect(errors).toContain("provider answered 503 (attempt 1)");
    expect(errors).toContain("provider answered 503 (attempt 2)");
    expect(await page.locator("#attempts").count()).toBe(1);
    // A failed job can be retried, not cancelled: only Retry is shown.
    expect(await page.locator("form#retry button").isVisible()).toBe(true);
    expect(await page.locator("form#cancel button").isVisible()).toBe(false);

    await Promise.all([page.waitForLoadState("load"), page.locator("form#retry button").click()]);
    await page.locator("#flash").waitFor();
    await page.waitForFunction(`document.querySelector("#job-status")?.textContent?.trim() === "queued"`);
    expect(await jobStatus(id)).toBe("queued");
    const queue = await env.pool.query("select 1 from graphile_worker.jobs where key = $1", [`job:${id}`]);
    expect(queue.rowCount).toBe(1);
  });

  it("Cancel cancels a queued job", async () => {
    const id = await bulkJob();
    await page.goto(`${env.app.origin}/ops/jobs/app/${id}`);
    expect((await page.locator("#job-status").innerText()).trim()).toBe("queued");
    expect(await page.locator("form#retry button").isVisible()).toBe(false);
    await page.locator("form#cancel button").click();
    await page.locator("#flash").waitFor();
    await page.waitForFunction(`document.querySelector("#job-status")?.textContent?.trim() === "cancelled"`);
    expect(await jobStatus(id)).toBe("cancelled");
    const queue = await env.pool.query("select 1 from graphile_worker.jobs where key = $1", [`job:${id}`]);
    expect(queue.rowCount).toBe(0);
  });

  it("refuses a POST without the CSRF token forged from another origin's page", async () => {
    const id = await bulkJob();
    await page.goto(`${env.app.origin}/ops/jobs/app/${id}`);
    const action = new URL((await page.locator("form#cancel").getAttribute("action")) ?? "", page.url()).href;

    // Another origin (a second local server on its own port) serving a page that posts the cancel
    // form to the console on load, with the operator's session cookie but without the CSRF token.
    const evil = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><form method="post" action="${action}"><input type="hidden" name="reason" value="forged"></form>
<script>document.forms[0].submit()</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
    try {
      const forged = await browser.newPage();
      try {
        const answered = forged.waitForResponse((r) => r.url() === action && r.request().method() === "POST");
        await forged.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
        const response = await answered;
        expect(response.status()).toBeGreaterThanOrEqual(400);
        expect(response.status()).toBeLessThan(500);
      } finally {
        await forged.close();
      }
    } finally {
      // The browser keeps its connection alive: close it, or close() would wait for it.
      evil.closeAllConnections();
      await new Promise((resolve) => evil.close(resolve));
    }
    expect(await jobStatus(id)).toBe("queued");
  });

  it("shows status colours, relative times with the exact time on hover, and links a job to its shop's page and back", async () => {
    const id = await bulkJob();
    await page.goto(`${env.app.origin}/ops/jobs?source=app&task=${TASK}`);
    const row = appRow(id);
    await row.waitFor();
    const badge = row.locator("td.status .badge");
    expect(await badge.getAttribute("class")).toContain("status-info");
    // A colour of its own (not the page's default background).
    const colour = await page.evaluate(`getComputedStyle(document.querySelector('table#jobs tr[data-job-id="${id}"] td.status .badge')).backgroundColor`);
    expect(colour).not.toBe("rgba(0, 0, 0, 0)");
    const created = row.locator("td.created time");
    expect(await created.getAttribute("title")).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(await created.innerText()).toMatch(/ago|just now/);
    await Promise.all([page.waitForURL((url) => url.pathname === `/ops/shops/${env.shopId}`), row.locator("td.shop a").click()]);
    await page.locator(`table#entity-jobs tr[data-job-id="${id}"]`).waitFor();
    await Promise.all([page.waitForURL((url) => url.pathname === `/ops/jobs/app/${id}`), page.locator(`table#entity-jobs tr[data-job-id="${id}"] a`).first().click()]);
    expect((await page.locator("#job-status").innerText()).trim()).toBe("queued");
  });

  it("draws the history graph as inline SVG and switches its range", async () => {
    await page.goto(`${env.app.origin}/ops`);
    const svg = page.locator("svg#history-graph");
    await svg.waitFor();
    expect(await svg.getAttribute("data-range")).toBe("1h");
    expect(await page.locator("svg#history-graph g.bucket").count()).toBe(60);
    await Promise.all([page.waitForURL((url) => url.searchParams.get("range") === "7d"), page.locator('#graph-ranges a[data-range="7d"]').click()]);
    expect(await page.locator("svg#history-graph").getAttribute("data-range")).toBe("7d");
    expect(await page.locator("svg#history-graph g.bucket").count()).toBe(84);
  });

  it("retries every failed job of a task in bulk after confirming the count; a hostile payload and error are shown as text", async () => {
    const hostile = "<script>window.opsPwned = 1</script>";
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const id = await bulkJob();
      ids.push(id);
      await env.pool.query(
        `update jobs set status = 'failed', attempts = max_attempts, finished_at = now(), updated_at = now(), payload = payload || jsonb_build_object('note', $2::text),
           errors = jsonb_build_array(jsonb_build_object('attempt', 1, 'message', $2::text, 'at', now()))
         where id = $1`,
        [id, hostile],
      );
      await env.pool.query("select graphile_worker.remove_job($1)", [`job:${id}`]);
    }
    await page.goto(`${env.app.origin}/ops/jobs/app/${ids[0]}`);
    expect(await page.locator("#payload").innerText()).toContain(hostile);
    expect(await page.locator("#errors").innerText()).toContain(hostile);
    expect(await page.evaluate("window.opsPwned")).toBeUndefined();

    await page.goto(`${env.app.origin}/ops/jobs?source=app&task=${TASK}&status=failed`);
    expect(await page.locator("table#jobs td.error").first().innerText()).toContain(hostile);
    const failedBefore = await page.locator("table#jobs tr[data-job-id]").count();
    await Promise.all([page.waitForURL((url) => url.pathname === "/ops/jobs/bulk"), page.locator("a#bulk-retry").click()]);
    expect(Number(await page.locator("#bulk-count").innerText())).toBe(failedBefore);
    await Promise.all([page.waitForURL((url) => url.pathname === "/ops/jobs"), page.locator("form#bulk-form button[type=submit]").click()]);
    expect(await page.locator("#flash").innerText()).toBe(`${failedBefore} job(s) queued again.`);
    for (const id of ids) expect(await jobStatus(id)).toBe("queued");
    expect(await page.evaluate("window.opsPwned")).toBeUndefined();
  });

  it("searches jobs and messages from the search page", async () => {
    const id = await bulkJob();
    await page.goto(`${env.app.origin}/ops/search`);
    await page.fill("form#search input[name=q]", id);
    await Promise.all([page.waitForURL((url) => url.searchParams.get("q") === id), page.locator("form#search button").click()]);
    await page.locator(`table#jobs tr[data-job-id="${id}"]`).waitFor();
  });

  it("logs out: the console asks for the token again", async () => {
    await page.goto(`${env.app.origin}/ops`);
    await Promise.all([page.waitForURL((url) => url.pathname === "/ops/login"), page.locator("form#logout button").click()]);
    await page.goto(`${env.app.origin}/ops/jobs`);
    await page.locator("form#login").waitFor();
    expect(new URL(page.url()).pathname).toBe("/ops/login");
  });
});
