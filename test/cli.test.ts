import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { declareTask, enqueue } from "../src/core/tasks.ts";
import { sendAttemptsFor } from "../src/messaging/retry.ts";
import { type CliResult, runCli } from "./helpers/cli.ts";
import { seedAlert, seedNotification } from "./helpers/failed-messages.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { queueJobCount } from "./helpers/queue.ts";

const env = useTestEnv({ app: false, shop: false, poolSize: 2 });

const cli = (...args: string[]): Promise<CliResult> => runCli(env.db.url, args);

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

async function insertJob(fields: { shopId: string | null; kind: string; status: string; errors?: unknown[]; createdAt: string }): Promise<string> {
  const { rows } = await env.pool.query<{ id: string }>(
    `insert into jobs (shop_id, kind, status, total, processed, errors, result, attempts, created_at, finished_at)
     values ($1, $2, $3, 10, 4, $4, $5, 2, $6, case when $3 in ('failed', 'completed', 'cancelled') then $6::timestamptz + interval '1 minute' end)
     returning id`,
    [fields.shopId, fields.kind, fields.status, JSON.stringify(fields.errors ?? []), JSON.stringify({ note: "partial" }), fields.createdAt],
  );
  const row = rows[0];
  if (!row) throw new Error("no job inserted");
  return row.id;
}

describe("cli: usage", () => {
  it("prints usage on stderr with exit 2 for an unknown command", async () => {
    const result = await cli("frobnicate");
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("unknown command: frobnicate");
    expect(result.stderr).toContain("jobs retry JOB_ID");
  });

  it("prints usage with exit 0 for help", async () => {
    const result = await cli("help");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("Usage: npm run cli");
  });

  it("rejects an unknown option with exit 2", async () => {
    const result = await cli("keys", "list", "--shopp", "x");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: .*--shopp/);
  });
});

describe("cli: migrate", () => {
  it("applies nothing new on a migrated database", async () => {
    const before = await env.pool.query("select id from app_migrations order by id");
    const result = await cli("migrate");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("No migrations to apply: the database is up to date.\n");
    const after = await env.pool.query("select id from app_migrations order by id");
    expect(after.rows).toEqual(before.rows);
    expect(after.rowCount).toBeGreaterThan(0);
  });
});

describe("cli: shops and keys", () => {
  let shopId: string;
  let firstKey: string;

  it("shops create prints one JSON line with a shop and a key stored only as its sha256 hash", async () => {
    const result = await cli("shops", "create", "--name", "CLI Shop");
    expect(result.code).toBe(0);
    expect(result.stdout.endsWith("\n")).toBe(true);
    expect(result.stdout.trimEnd().split("\n")).toHaveLength(1);
    const created = JSON.parse(result.stdout) as { shop_id: string; api_key: string };
    expect(Object.keys(created).sort()).toEqual(["api_key", "shop_id"]);
    shopId = created.shop_id;
    firstKey = created.api_key;

    const shop = await env.pool.query<{ name: string }>("select name from shops where id = $1", [shopId]);
    expect(shop.rows).toEqual([{ name: "CLI Shop" }]);
    const key = await env.pool.query<{ shop_id: string; revoked_at: Date | null }>(
      "select shop_id, revoked_at from api_keys where key_hash = $1",
      [sha256(firstKey)],
    );
    expect(key.rows).toEqual([{ shop_id: shopId, revoked_at: null }]);
    const clear = await env.pool.query("select 1 from api_keys where position($1 in row_to_json(api_keys)::text) > 0", [firstKey]);
    expect(clear.rowCount).toBe(0);
  });

  it("keys create adds a second live key to the shop", async () => {
    const result = await cli("keys", "create", "--shop", shopId);
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout) as { shop_id: string; api_key: string };
    expect(created.shop_id).toBe(shopId);
    expect(created.api_key).not.toBe(firstKey);
    const keys = await env.pool.query<{ key_hash: Buffer }>("select key_hash from api_keys where shop_id = $1 and revoked_at is null", [shopId]);
    expect(keys.rows.map((r) => r.key_hash.toString("hex")).sort()).toEqual(
      [sha256(firstKey).toString("hex"), sha256(created.api_key).toString("hex")].sort(),
    );
  });

  it("keys create for an unknown shop, or a non-uuid, exits 1 with one line on stderr", async () => {
    for (const shop of ["00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const result = await cli("keys", "create", "--shop", shop);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(`error: Shop not found: ${shop}\n`);
    }
  });

  it("keys create without --shop is a usage error", async () => {
    const result = await cli("keys", "create");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--shop is required");
  });

  it("keys list shows ids and dates, never the key or its hash", async () => {
    const ids = await env.pool.query<{ id: string; key_hash: Buffer }>("select id, key_hash from api_keys where shop_id = $1", [shopId]);
    const table = await cli("keys", "list", "--shop", shopId);
    expect(table.code).toBe(0);
    expect(table.stdout.split("\n")[0]).toMatch(/^id\s+created_at\s+revoked_at$/);
    for (const row of ids.rows) {
      expect(table.stdout).toContain(row.id);
      expect(table.stdout).not.toContain(row.key_hash.toString("hex"));
    }
    expect(table.stdout).not.toContain(firstKey);

    const json = await cli("keys", "list", "--shop", shopId, "--json");
    expect(json.code).toBe(0);
    const listed = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(listed.map((k) => k.id).sort()).toEqual(ids.rows.map((r) => r.id).sort());
    for (const key of listed) expect(Object.keys(key).sort()).toEqual(["created_at", "id", "revoked_at", "shop_id"]);
  });

  it("keys revoke by the key sets revoked_at; a second revoke exits 1", async () => {
    const result = await cli("keys", "revoke", firstKey);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ revoked: true });
    const row = await env.pool.query<{ revoked_at: Date | null }>("select revoked_at from api_keys where key_hash = $1", [sha256(firstKey)]);
    expect(row.rows[0]?.revoked_at).toBeInstanceOf(Date);

    const again = await cli("keys", "revoke", firstKey);
    expect(again.code).toBe(1);
    expect(again.stderr).not.toContain(firstKey);
    expect(again.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("keys revoke by id sets revoked_at; an unknown id exits 1", async () => {
    const live = await env.pool.query<{ id: string }>("select id from api_keys where shop_id = $1 and revoked_at is null", [shopId]);
    const id = live.rows[0]?.id;
    expect(live.rowCount).toBe(1);
    const result = await cli("keys", "revoke", String(id));
    expect(result.code).toBe(0);
    const row = await env.pool.query<{ revoked_at: Date | null }>("select revoked_at from api_keys where id = $1", [id]);
    expect(row.rows[0]?.revoked_at).toBeInstanceOf(Date);

    const unknown = await cli("keys", "revoke", "00000000-0000-4000-8000-000000000000");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: No live API key 00000000-0000-4000-8000-000000000000 found/);
  });
});

describe("cli: jobs", () => {
  let shopId: string;
  let failedId: string;
  let queuedId: string;
  let completedId: string;

  beforeAll(async () => {
    const shop = await env.pool.query<{ id: string }>("insert into shops (name) values ('Jobs Shop') returning id");
    shopId = String(shop.rows[0]?.id);
    failedId = await insertJob({
      shopId,
      kind: "reports.export",
      status: "failed",
      errors: ["platform answered 503", { message: "gave up after 5 attempts" }],
      createdAt: "2030-01-01T10:00:00Z",
    });
    queuedId = await insertJob({ shopId, kind: "offers.sync", status: "queued", createdAt: "2030-01-01T11:00:00Z" });
    completedId = await insertJob({ shopId: null, kind: "maintenance.prune", status: "completed", createdAt: "2030-01-01T09:00:00Z" });
  });

  it("jobs list prints an aligned table, newest first", async () => {
    const result = await cli("jobs", "list");
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^id\s+kind\s+shop\s+status\s+processed\/total\s+attempts\s+created_at\s+finished_at$/);
    expect(lines.slice(1).map((line) => line.split(/\s+/)[0])).toEqual([queuedId, failedId, completedId]);
    // Aligned: every row's status column starts where the header's does.
    const statusAt = lines[0]?.indexOf("status");
    for (const line of lines.slice(1)) expect(line.slice(statusAt).split(/\s+/)[0]).toMatch(/^(queued|failed|completed)$/);
    expect(result.stdout).toContain("reports.export");
    expect(result.stdout).toContain("4/10");
    expect(result.stdout).toContain("2030-01-01 10:00:00Z");
  });

  it("jobs list filters by --status, --kind and --shop, and honours --limit", async () => {
    const failed = await cli("jobs", "list", "--status", "failed");
    expect(failed.code).toBe(0);
    expect(failed.stdout).toContain(failedId);
    expect(failed.stdout).not.toContain(queuedId);
    expect(failed.stdout).not.toContain(completedId);

    const kind = await cli("jobs", "list", "--kind", "offers.sync", "--json");
    expect((JSON.parse(kind.stdout) as { id: string }[]).map((j) => j.id)).toEqual([queuedId]);

    const shop = await cli("jobs", "list", "--shop", shopId, "--json");
    expect((JSON.parse(shop.stdout) as { id: string }[]).map((j) => j.id)).toEqual([queuedId, failedId]);

    const limited = await cli("jobs", "list", "--limit", "1", "--json");
    expect((JSON.parse(limited.stdout) as { id: string }[]).map((j) => j.id)).toEqual([queuedId]);
  });

  it("jobs list rejects an unknown --status and a bad --limit with exit 2", async () => {
    const status = await cli("jobs", "list", "--status", "done");
    expect(status.code).toBe(2);
    expect(status.stdout).toBe("");
    expect(status.stderr).toContain("--status must be one of: queued, running, completed, failed, cancelled");
    const limit = await cli("jobs", "list", "--limit", "0");
    expect(limit.code).toBe(2);
  });

  it("jobs list --json prints a JSON array of rows", async () => {
    const result = await cli("jobs", "list", "--json");
    expect(result.code).toBe(0);
    const jobs = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(jobs.map((j) => j.id)).toEqual([queuedId, failedId, completedId]);
    expect(jobs[1]).toMatchObject({ status: "failed", kind: "reports.export", shop_id: shopId, processed: 4, total: 10 });
  });

  it("jobs show prints every field with the errors listed, or JSON", async () => {
    const text = await cli("jobs", "show", failedId);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^id:\\s+${failedId}$`, "m"));
    expect(text.stdout).toMatch(/^status:\s+failed$/m);
    expect(text.stdout).toMatch(/^max_attempts:\s+5$/m);
    expect(text.stdout).toMatch(/^result:\s+\{"note":"partial"\}$/m);
    expect(text.stdout).toMatch(/^errors:\s+2$/m);
    expect(text.stdout).toContain("  - platform answered 503\n");
    expect(text.stdout).toContain('  - {"message":"gave up after 5 attempts"}\n');

    const json = await cli("jobs", "show", failedId, "--json");
    const job = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(job).toMatchObject({
      id: failedId,
      status: "failed",
      errors: ["platform answered 503", { message: "gave up after 5 attempts" }],
      result: { note: "partial" },
      created_at: "2030-01-01T10:00:00.000Z",
    });
    expect(Object.keys(job)).toEqual(expect.arrayContaining(["payload", "attempts", "max_attempts", "started_at", "finished_at", "updated_at"]));

    const missing = await cli("jobs", "show", "00000000-0000-4000-8000-000000000000");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("error: Job not found: 00000000-0000-4000-8000-000000000000\n");
  });

  it("jobs retry puts a failed job back in the queue with a graphile-worker job", async () => {
    expect(await queueJobCount(env.pool, failedId)).toBe(0);
    const result = await cli("jobs", "retry", failedId);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ job_id: failedId, status: "queued" });
    const row = await env.pool.query<{ status: string; attempts: number; finished_at: Date | null }>(
      "select status, attempts, finished_at from jobs where id = $1",
      [failedId],
    );
    expect(row.rows).toEqual([{ status: "queued", attempts: 0, finished_at: null }]);
    expect(await queueJobCount(env.pool, failedId)).toBe(1);
  });

  it("jobs retry refuses a queued job with exit 1 and changes nothing", async () => {
    const result = await cli("jobs", "retry", queuedId);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: Job ${queuedId} is queued: only a failed, cancelled or completed job can be retried\n`,
    );
    expect(await queueJobCount(env.pool, queuedId)).toBe(0);
    const row = await env.pool.query<{ status: string }>("select status from jobs where id = $1", [queuedId]);
    expect(row.rows[0]?.status).toBe("queued");
  });
});

describe("cli: jobs show and retry take the queue ids jobs list --source all prints", () => {
  it("shows a failed graphile-worker queue row by its id and reschedules it with fresh attempts", async () => {
    await enqueue(env.pool, declareTask({ name: "cli_test_queue_row", payload: z.object({ note: z.string() }) }), { note: "queue row" });
    const { rows } = await env.pool.query<{ id: string }>("select id::text from graphile_worker.jobs where task_identifier = 'cli_test_queue_row'");
    await env.pool.query("select graphile_worker.permanently_fail_jobs(array[$1::bigint], 'platform answered 503')", [rows[0]?.id]);

    const listed = await cli("jobs", "list", "--source", "all", "--kind", "cli_test_queue_row");
    expect(listed.code).toBe(0);
    const line = listed.stdout.split("\n").find((l) => l.startsWith("queue "));
    const id = line?.split(/\s+/)[1] ?? "";
    expect(id).toBe(rows[0]?.id);

    const shown = await cli("jobs", "show", id);
    expect(shown.stderr).toBe("");
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^id:\\s+${id}$`, "m"));
    expect(shown.stdout).toMatch(/^task:\s+cli_test_queue_row$/m);
    expect(shown.stdout).toMatch(/^status:\s+failed$/m);
    expect(shown.stdout).toMatch(/^last_error:\s+platform answered 503$/m);
    const json = JSON.parse((await cli("jobs", "show", id, "--json")).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ source: "queue", id, task: "cli_test_queue_row", status: "failed", payload: { note: "queue row" } });

    const retried = await cli("jobs", "retry", id);
    expect(retried.stderr).toBe("");
    expect(JSON.parse(retried.stdout)).toEqual({ job_id: id, source: "queue", status: "queued" });
    const after = await env.pool.query<{ attempts: number; due: boolean }>("select attempts, run_at <= now() as due from graphile_worker.jobs where id = $1", [id]);
    expect(after.rows).toEqual([{ attempts: 0, due: true }]);

    // Queued, it is not retried again; a row that is gone is not found.
    const again = await cli("jobs", "retry", id);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe("error: A queued job cannot be retried.\n");
    const gone = await cli("jobs", "show", "999999999");
    expect(gone.code).toBe(1);
    expect(gone.stderr).toBe("error: Job not found: 999999999 (a queue row is removed once it completes)\n");
  });
});

describe("cli: messages", () => {
  let shopA: string;
  let shopB: string;
  let alertA: { signupId: string; ledgerId: string };
  let notificationA: string;
  let pendingA: { signupId: string; ledgerId: string };
  let alertB: { signupId: string; ledgerId: string };

  const queueRow = async (key: string) =>
    (await env.pool.query<{ max_attempts: number }>("select max_attempts from graphile_worker.jobs where key = $1", [key])).rows[0];
  const status = async (table: "bis_ledger" | "preorder_notifications", id: string) =>
    (await env.pool.query<{ status: string }>(`select status from ${table} where id = $1`, [id])).rows[0]?.status;

  beforeAll(async () => {
    const shops = await env.pool.query<{ id: string }>("insert into shops (name) values ('Messages Shop A'), ('Messages Shop B') returning id");
    [shopA, shopB] = shops.rows.map((r) => r.id) as [string, string];
    alertA = await seedAlert(env.pool, shopA, { contact: "refused-a@example.com", status: "failed", error: "550 5.1.1 mailbox unavailable" });
    notificationA = await seedNotification(env.pool, shopA, { recipient: "buyer-a@example.com", status: "failed", error: "421 try again later (retry window ended)" });
    pendingA = await seedAlert(env.pool, shopA, { contact: "pending-a@example.com", status: "pending" });
    alertB = await seedAlert(env.pool, shopB, { contact: "refused-b@example.com", status: "failed", error: "550 no such user" });
  });

  it("messages failed lists both areas' failed messages with their reason, filtered by shop and area", async () => {
    const table = await cli("messages", "failed");
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^id\s+area\s+shop\s+stage\s+channel\s+recipient\s+attempts\s+created\s+error$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[0]).sort()).toEqual([alertA.ledgerId, notificationA, alertB.ledgerId].sort());
    expect(table.stdout).toMatch(new RegExp(`^${notificationA}\\s+preorders\\s+${shopA}\\s+confirmation\\s+email\\s+buyer-a@example.com\\s+2\\s+.*421 try again later`, "m"));
    expect(table.stdout).not.toContain(pendingA.ledgerId);

    const json = JSON.parse((await cli("messages", "failed", "--shop", shopA, "--area", "back_in_stock", "--json")).stdout) as Record<string, unknown>[];
    expect(json).toEqual([expect.objectContaining({ id: alertA.ledgerId, area: "back_in_stock", shop_id: shopA, recipient: "refused-a@example.com", error: "550 5.1.1 mailbox unavailable" })]);
    const limited = await cli("messages", "failed", "--limit", "1");
    expect(limited.stdout.trimEnd().split("\n")).toHaveLength(2);
    expect(limited.stderr).toBe("Showing the newest 1 of 3 failed messages; --limit N shows more.\n");

    expect((await cli("messages", "failed", "--shop", "not-a-shop")).stderr).toBe("error: Shop not found: not-a-shop\n");
    const area = await cli("messages", "failed", "--area", "sms");
    expect(area.code).toBe(2);
    expect(area.stderr).toContain("--area must be one of: back_in_stock, preorders");
  });

  it("messages retry --id queues those messages again with the configured retry window, and refuses a message that is not failed", async () => {
    const neither = await cli("messages", "retry");
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain("give --id ID (one or more) or --all, not both");

    const refused = await cli("messages", "retry", "--id", notificationA, "--id", pendingA.ledgerId);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`error: Not a failed message: ${pendingA.ledgerId} (nothing was queued; see: messages failed)\n`);
    expect(await status("preorder_notifications", notificationA)).toBe("failed");

    const retried = await runCli(env.db.url, ["messages", "retry", "--id", notificationA], { SEND_RETRY_HOURS: "2" });
    expect(retried.stderr).toBe("");
    expect(JSON.parse(retried.stdout)).toEqual({ back_in_stock: 0, preorders: 1, shop_id: null });
    expect(await status("preorder_notifications", notificationA)).toBe("pending");
    expect(await queueRow(`preorders_notification_send:${notificationA}`)).toBeDefined();
    expect(await status("bis_ledger", alertA.ledgerId)).toBe("failed");
  });

  it("messages retry --all takes a shop's failed messages, or every shop's without --shop (and says so)", async () => {
    const one = await runCli(env.db.url, ["messages", "retry", "--all", "--shop", shopA], { SEND_RETRY_HOURS: "2" });
    expect(one.stderr).toBe("");
    expect(JSON.parse(one.stdout)).toEqual({ back_in_stock: 1, preorders: 0, shop_id: shopA });
    expect(await status("bis_ledger", alertA.ledgerId)).toBe("pending");
    expect((await env.pool.query<{ status: string }>("select status from bis_signups where id = $1", [alertA.signupId])).rows[0]?.status).toBe("pending");
    expect(await queueRow(`bis_send:${alertA.ledgerId}`)).toEqual({ max_attempts: sendAttemptsFor(2) });
    expect(await status("bis_ledger", alertB.ledgerId)).toBe("failed");

    const every = await cli("messages", "retry", "--all");
    expect(every.code).toBe(0);
    expect(every.stderr).toBe("No --shop: retrying the failed messages of every shop.\n");
    expect(JSON.parse(every.stdout)).toEqual({ back_in_stock: 1, preorders: 0, shop_id: null });
    expect(await status("bis_ledger", alertB.ledgerId)).toBe("pending");
    expect((await cli("messages", "failed")).stdout).toBe("No failed messages.\n");
  });
});
