/**
 * `npm run screenshots`: the ops console's screenshots in docs/ (ops-console-overview.png,
 * ops-console-jobs.png, ops-console-job-failed.png, ops-console-graph.png,
 * ops-console-job-attempts.png, ops-console-bulk-confirm.png), taken in the headless Chromium of the browser
 * tests (test/helpers/browser.ts) against the real HTTP app over a scratch database with demo data:
 * two shops, bulk jobs created through the API (queued, no worker runs), and some of them marked
 * completed or failed (with their attempts' errors) as the worker records them; an alert run, offer
 * syncs, webhook deliveries and failing signup syncs for the overview (seedOverview).
 *
 * Environment: DATABASE_URL names a server to create a scratch database on (never used itself),
 * else the embedded server (test/helpers/screenshot-target.ts); CHROMIUM_PATH (default
 * /usr/bin/chromium); SCREENSHOTS_DIR (default a scratch directory; docs updates the tracked ones).
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { cleanup, onCleanup, quietPool } from "../bench/lib.ts";
import { screenshotDatabase, screenshotsDir } from "./helpers/screenshot-target.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { api, createShopWithKey, startTestApp } from "./helpers/app.ts";
import { browserUnavailable, launchBrowser } from "./helpers/browser.ts";

// A scratch directory unless SCREENSHOTS_DIR says (SCREENSHOTS_DIR=docs updates the tracked ones).
const OUT = screenshotsDir();
const TOKEN = randomBytes(24).toString("base64url");

/**
 * The runs the worker records (job_attempts) and its finished-jobs history (job_history), as a day
 * of work leaves them: sends, syncs and webhooks every 20 minutes with some failures, and one send
 * job that failed twice, was retried from the console and then succeeded. Its queue id.
 */
async function seedHistory(pool: pg.Pool): Promise<string> {
  await pool.query(
    `insert into job_attempts (id, queue_job_id, task, attempt, max_attempts, worker_id, started_at, finished_at, outcome, error)
     select gen_random_uuid(), 100000 + row_number() over (), task, 1, 25, 'worker-7f3a1c',
       now() - (m || ' minutes')::interval - interval '2 seconds', now() - (m || ' minutes')::interval,
       case when (m + k) % 11 = 0 then 'retrying' else 'completed' end,
       case when (m + k) % 11 = 0 then 'connect ETIMEDOUT smtp.example.net:587' end
     from generate_series(0, 1430, 7) m, generate_series(1, 3) k,
       lateral (select (array['bis_send', 'provider_sync_signup', 'platform_webhook'])[k] as task) t
     where (m * k) % 5 <> 1`,
  );
  const id = "99001";
  await pool.query(
    `insert into job_attempts (id, queue_job_id, task, attempt, max_attempts, worker_id, started_at, finished_at, outcome, error) values
       (gen_random_uuid(), $1, 'bis_send', 1, 1, 'worker-7f3a1c', now() - interval '42 minutes', now() - interval '42 minutes', 'failed', 'SMTP 421 4.7.0 Try again later, closing connection'),
       (gen_random_uuid(), $1, 'bis_send', 1, 1, 'worker-2b9e04', now() - interval '31 minutes', now() - interval '31 minutes', 'failed', 'connect ECONNREFUSED 10.0.0.12:587'),
       (gen_random_uuid(), $1, 'bis_send', 1, 1, 'worker-7f3a1c', now() - interval '12 minutes', now() - interval '12 minutes', 'completed', null)`,
    [id],
  );
  const { rows } = await pool.query<{ id: string }>("select id from bis_ledger limit 1");
  await pool.query(
    `insert into job_history (queue_job_id, task, status, attempts, max_attempts, worker_id, payload, created_at, finished_at)
     values ($1, 'bis_send', 'completed', 1, 1, 'worker-7f3a1c', $2, now() - interval '43 minutes', now() - interval '12 minutes')`,
    [id, JSON.stringify(rows[0] ? { ledger_id: rows[0].id } : { ledger_id: "00000000-0000-0000-0000-000000000000" })],
  );
  return id;
}

/**
 * What the overview shows besides jobs, as the worker and the webhook intake leave it: an alert
 * run between batches, alert sends queued and scheduled, offers synced, pending and failed,
 * webhook deliveries processed over the last hour with two still waiting, a provider refusing signups.
 */
async function seedOverview(pool: pg.Pool, [aurora, harbor]: string[]): Promise<void> {
  if (!aurora || !harbor) throw new Error("two shops expected");
  const { rows: runs } = await pool.query<{ id: string }>(
    `insert into bis_alert_runs (shop_id, variant_id, trigger, batches, notified, last_available, batch_quota, started_at, next_batch_at)
     values ($1, 'gid://shopify/ProductVariant/44101', 'webhook', 3, 60, 12, 20, now() - interval '3 minutes', now() + interval '40 seconds') returning id`,
    [aurora],
  );
  for (let n = 0; n < 6; n++) {
    await pool.query("select graphile_worker.add_job('bis_send', json_build_object('ledger_id', gen_random_uuid()), run_at := now() + make_interval(secs => $1))", [n < 4 ? 0 : 90]);
  }
  await pool.query("select graphile_worker.add_job('bis_alert_run', json_build_object('run_id', $1::text), run_at := now() + interval '40 seconds')", [runs[0]?.id]);
  const offers: [string, string, string, string | null][] = [
    [aurora, "Spring trail jacket", "synced", null],
    [aurora, "Merino base layer", "synced", null],
    [harbor, "First flush Darjeeling", "pending", null],
    [harbor, "Winter gift box", "failed", "The store platform answered 502 Bad Gateway (25 attempts)"],
  ];
  for (const [shop, name, status, error] of offers) {
    await pool.query(
      `insert into preorder_offers (shop_id, name, internal_name, status, sync_status, sync_last_error, updated_at)
       values ($1, $2, $2, 'active', $3, $4, now() - interval '2 minutes')`,
      [shop, name, status, error],
    );
  }
  await pool.query(
    `insert into webhook_deliveries (shop_id, webhook_id, topic, payload, payload_sha256, received_at, processed_at)
     select $1, 'demo-' || n, 'inventory_levels/update', '{}', sha256(('demo-' || n)::bytea), now() - n * interval '90 seconds', now() - n * interval '90 seconds' + (0.2 + (n % 7) * 0.35) * interval '1 second'
     from generate_series(1, 36) n`,
    [aurora],
  );
  await pool.query(
    `insert into webhook_deliveries (shop_id, webhook_id, topic, payload, payload_sha256, received_at)
     select $1, 'demo-waiting-' || n, 'orders/create', '{}', sha256(('demo-waiting-' || n)::bytea), now() - n * interval '2 seconds' from generate_series(1, 2) n`,
    [harbor],
  );
  await pool.query(
    `with signups as (
       insert into bis_signups (shop_id, variant_id, channel, contact, consent, status, locale)
       select $1, 'gid://shopify/ProductVariant/5520' || n, 'email', 'buyer' || n || '@example.com', true, 'waiting', 'en' from generate_series(1, 3) n
       returning id
     )
     insert into signup_syncs (signup_id, target, shop_id, status, attempts, last_error, updated_at)
     select id, 'email_provider_2', $1, 'failed', 25, 'email_provider_2 answered 401: the API key was revoked', now() - interval '4 minutes' from signups`,
    [harbor],
  );
}

async function main(): Promise<void> {
  const unavailable = browserUnavailable();
  if (unavailable) throw new Error(unavailable);

  const db = await screenshotDatabase("screenshots");
  process.stderr.write(`database: ${db.description}\n`);
  const pool = quietPool(db.url, 4);
  onCleanup(() => pool.end());
  await migrate(pool, createLogger("warn"));

  const dataDir = await mkdtemp(path.join(os.tmpdir(), "screenshots-"));
  onCleanup(() => rm(dataDir, { recursive: true, force: true }));
  const app = await startTestApp(db.url, { OPERATOR_TOKEN: TOKEN, DATA_DIR: dataDir, SECRETS_KEY: randomBytes(32).toString("base64") });
  onCleanup(() => app.close());

  // Demo data: bulk jobs of two shops through the API.
  const shops = [await createShopWithKey(pool, "Aurora Outfitters"), await createShopWithKey(pool, "Harbor Tea Co")];
  const jobs: string[] = [];
  for (let i = 0; i < 9; i++) {
    const shop = shops[i % 2];
    if (!shop) throw new Error("no shop");
    const ids = Array.from({ length: 1 + i }, (_, n) => `00000000-0000-0000-0000-${String(i * 100 + n).padStart(12, "0")}`);
    const answer = await api(app, "POST", "/back_in_stock/signups/bulk_delete", { key: shop.apiKey, body: { ids } });
    if (answer.status !== 202) throw new Error(`bulk_delete answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    jobs.push((answer.body as { job_id: string }).job_id);
  }
  const [failed, ...rest] = jobs;
  if (!failed) throw new Error("no job");
  const completed = rest.slice(0, 4);
  // What the worker records: completed jobs with their result; a failed one with an error per attempt.
  await pool.query(
    `update jobs set status = 'completed', attempts = 1, processed = total, started_at = now() - interval '2 minutes',
       finished_at = now() - interval '1 minute', updated_at = now(), result = jsonb_build_object('deleted', 0, 'not_found', total)
     where id = any($1::uuid[])`,
    [completed],
  );
  await pool.query(
    `update jobs set status = 'failed', attempts = max_attempts, started_at = now() - interval '5 minutes', finished_at = now(), updated_at = now(),
       errors = (select jsonb_agg(jsonb_build_object('message', format('connect ECONNREFUSED 10.0.0.7:5432 (attempt %s)', n), 'at', now() - (6 - n) * interval '1 minute')) from generate_series(1, max_attempts) n)
     where id = $1`,
    [failed],
  );
  await pool.query("select graphile_worker.remove_job('job:' || id::text) from jobs where status in ('completed', 'failed')");
  await seedOverview(pool, shops.map((shop) => shop.shopId));
  const attempted = await seedHistory(pool);

  const browser = await launchBrowser({ viewport: { width: 1280, height: 800 } });
  onCleanup(() => browser.close());
  const page = await browser.newPage();
  await page.goto(`${app.origin}/ops/login`);
  await page.fill("form#login input[name=token]", TOKEN);
  await Promise.all([page.waitForURL((url) => url.pathname !== "/ops/login"), page.locator("form#login [type=submit]").click()]);

  const shots: [string, string, string][] = [
    ["ops-console-overview.png", "/ops", "table#queue-depth"],
    ["ops-console-jobs.png", "/ops/jobs", "table#jobs"],
    ["ops-console-job-failed.png", `/ops/jobs/app/${failed}`, "#errors"],
    ["ops-console-graph.png", "/ops?range=24h", "svg#history-graph"],
    ["ops-console-job-attempts.png", `/ops/jobs/queue/${attempted}`, "table#attempt-log"],
    ["ops-console-bulk-confirm.png", "/ops/jobs/bulk?action=cancel&source=app&task=bis_signups_bulk_delete", "#bulk-confirm"],
  ];
  for (const [file, url, ready] of shots) {
    await page.goto(`${app.origin}${url}`);
    await page.locator(ready).waitFor();
    const target = path.join(OUT, file);
    await page.screenshot({ path: target, fullPage: true });
    process.stdout.write(`${path.relative(process.cwd(), target)}\n`);
  }
}

try {
  await main();
} finally {
  await cleanup();
}
