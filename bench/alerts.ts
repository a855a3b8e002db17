/**
 * `npm run bench:alerts`, three measurements in one run:
 *
 * 1. Alert throughput, at each size of BENCH_SIGNUPS (20,000 and 100,000). A restock of one
 *    variant with that many waiting signups (a multiplier high enough to alert them all in one
 *    batch; the shop on the Scale plan, whose quota holds them), through the service's worker in
 *    its own process, to a local SMTP sink in this process: messages per second from the restock
 *    (the inventory webhook recorded, as the HTTP intake does) to the last message received by
 *    the sink. Beside it, the baseline: nodemailer's pool (same pool size) sending as many
 *    pre-rendered messages of the same template to the same sink, from its own process, composed
 *    per send as the SMTP channel composes them, with at most SEND_CONCURRENCY sends in flight
 *    as the pipeline has (bounded; target: the pipeline >= 90% of it), and, for reference, all
 *    of them handed to the pool at once (unbounded) and bounded but composed by nodemailer's
 *    MailComposer (composer, the channel's way until decision 0182). The bounded baseline and the
 *    pipeline run interleaved (bench/rounds.ts): BENCH_ROUNDS rounds at each size, the baseline
 *    first in odd rounds and the pipeline first in even ones, each pipeline run on a shop of its
 *    own (seeded before, deleted and vacuumed away after, none of it timed); the gate is the median
 *    of the per-round ratios, printed with its spread (min-max). The references run once, after
 *    the rounds. The database server's CPU is printed beside each (its postmaster's processes,
 *    when it runs on this machine).
 *    What the pipeline wrote is printed per alert (bench/writes.ts): rows (inserts, updates, HOT
 *    updates, deletes, by table) and WAL records, from the restock to the last mark.
 *    Every wait has a deadline (BENCH_TIMEOUT_SECONDS) and fails with what arrived and what the
 *    ledger says (sent, blocked and why, failed, pending).
 *    The cleanup after each pipeline round is timed apart (the delete of the shop's row, whose
 *    keys cascade to its signups, ledger, log...; then the vacuum) and printed per size, with the
 *    delete's time per signup at each size beside the first size's: linear is 1.00x (issue 30).
 *    The sink measures the messages in flight (from a transaction's MAIL FROM to the answer to its
 *    DATA), their time-weighted mean and peak, for every side.
 * 2. At a provider's pace (decision 0237): the bounded baseline and the pipeline, interleaved as
 *    above (BENCH_PROVIDER_ROUNDS rounds), BENCH_PROVIDER_SIGNUPS messages each to a second sink
 *    that answers each message BENCH_PROVIDER_LATENCY_MS after its last byte, as a provider's API
 *    does: a pooled connection holds its one message that long, so the ideal is SMTP_POOL_SIZE /
 *    latency messages per second, whatever the CPU. Printed: both rates against that ideal, their
 *    ratio, the messages in flight at the sink (against the pool's connections and
 *    SEND_CONCURRENCY); the gate, as above, the median ratio >= 90%.
 * 3. The reminder scan over 1,000,000 signups (one INSERT ... SELECT generate_series), 100,000
 *    of them alerted and awaiting their reminder, 1,000 due: the time of a whole scan (claim and
 *    send the due ones) and of its due query, and that query's EXPLAIN (ANALYZE) plan.
 *
 * Writes the figures to bench/results/alerts.json (BENCH_RESULTS_DIR to write them elsewhere).
 * Environment: BENCH_ROUNDS (5), BENCH_SIGNUPS ("20000,100000"),
 * BENCH_REMINDER_SIGNUPS (1000000), BENCH_TIMEOUT_SECONDS (600), BENCH_UNBOUNDED_MAX (20000: the
 * largest size the unbounded reference runs at), BENCH_PROVIDER_LATENCY_MS (50),
 * BENCH_PROVIDER_SIGNUPS (2000), BENCH_PROVIDER_ROUNDS (BENCH_ROUNDS), SMTP_POOL_SIZE (5),
 * SEND_CONCURRENCY (the service's default), DATABASE_URL or a scratch database (see bench/lib.ts),
 * BENCH_STATEMENTS (1: each measured pipeline run's costliest statements from pg_stat_statements,
 * when the server preloads it; see bench/statements.ts).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type readline from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import type pg from "pg";
import { SMTPServer } from "smtp-server";
import { PLANS, setPlan } from "../src/account/plans.ts";
import { REMINDER_DUE_QUERY, scanReminders } from "../src/back_in_stock/alerts/reminders.ts";
import { loadConfig } from "../src/config.ts";
import { createShop } from "../src/db/api-keys.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { PlatformRuntime } from "../src/platform/runtime.ts";
import { createChannels } from "../src/channels/index.ts";
import { acceptWebhook } from "../src/webhooks/intake.ts";
import { acquireDatabase, cleanup, onCleanup, positiveIntEnv, quietPool, seedOneVariantWithSignups, startChild, stopChild } from "./lib.ts";
import { type Round, type Spread, gate, median, percent, resultsFile, roundsFromEnv, runRounds, spread, times } from "./rounds.ts";
import { type StatementCost, describeStatements, enableStatements, resetStatements, topStatements } from "./statements.ts";
import { type WritesDelta, describePerAlert, describeTables, describeWal, enableWalInspect, markWrites, writesSince } from "./writes.ts";

const SIZES = (process.env.BENCH_SIGNUPS ?? "20000,100000").split(",").map((raw) => {
  const n = Number(raw.trim());
  if (!Number.isInteger(n) || n <= 0) throw new Error(`BENCH_SIGNUPS must be positive integers separated by commas, got ${String(process.env.BENCH_SIGNUPS)}`);
  return n;
});
const REMINDER_SIGNUPS = positiveIntEnv("BENCH_REMINDER_SIGNUPS", 1_000_000);
const POOL_SIZE = positiveIntEnv("SMTP_POOL_SIZE", 5);
const TIMEOUT_SECONDS = positiveIntEnv("BENCH_TIMEOUT_SECONDS", 600);
// Above this the unbounded reference is skipped: nodemailer's pool takes minutes of CPU to work
// through 100,000 messages queued at once (a 100,000-message run passed ten minutes unfinished).
const UNBOUNDED_MAX = positiveIntEnv("BENCH_UNBOUNDED_MAX", 20_000);
const TARGET = 0.9;
// The pair against a sink at a provider's pace: each message answered this long after it was
// sent; small enough a size to stay short (2,000 messages at 5 / 0.05 s: 20 s a side).
const PROVIDER_LATENCY_MS = positiveIntEnv("BENCH_PROVIDER_LATENCY_MS", 50);
const PROVIDER_SIGNUPS = positiveIntEnv("BENCH_PROVIDER_SIGNUPS", 2000);
const ROUNDS = roundsFromEnv();
// Messages each side sends unmeasured before it is measured (decision 0238): the baseline's sender
// once before its rounds, each pipeline round's worker before its restock. A worker runs for days;
// measured cold, it is slower than it ever is in production, and the baseline's sender, warm after
// its first round, was compared cold in round 1 and warm after. 0: no warm-up.
const WARMUP = process.env.BENCH_WARMUP === "0" ? 0 : positiveIntEnv("BENCH_WARMUP", 2000);
// A backend reports its table counters at most once a second while busy, and an idle one ten
// seconds later (PostgreSQL's PGSTAT_IDLE_INTERVAL): after a warm-up, its writes must have been
// counted before the measured writes' start is read.
const STATS_IDLE_FLUSH_MS = 11_000;
const PROVIDER_ROUNDS = positiveIntEnv("BENCH_PROVIDER_ROUNDS", ROUNDS);
const cpuOf = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1e6;
const out = (line = "") => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);
/** The cleanup's delete, in microseconds per signup of the shop. */
const perSignupUs = (c: Cleanup, signups: number) => (c.delete_seconds / signups) * 1e6;
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(" ");

/**
 * The SMTP sink: counts messages and distinct Message-IDs; `expect(n)` resolves when n have arrived.
 * With `latencyMs`, each message is answered (its DATA accepted) that long after its last byte, as
 * a provider's API answers: a pooled connection holds its one message for that time. It also
 * measures the messages in flight (a session's transaction, from its MAIL FROM to the answer to its
 * DATA): their integral over time, exactly (updated at each change, no sampling interval), and
 * their peak since the last `expect`.
 */
async function startSink(latencyMs = 0) {
  let received = 0;
  const ids = new Set<string>();
  let target = Number.POSITIVE_INFINITY;
  let reached: (at: number) => void = () => undefined;
  const open = new Set<string>();
  let area = 0;
  let changedAt = performance.now();
  let peak = 0;
  let areaAtTarget = 0;
  let firstAt = Number.NaN;
  const settle = () => {
    const now = performance.now();
    area += open.size * (now - changedAt);
    changedAt = now;
  };
  const begin = (session: string) => {
    if (open.has(session)) return;
    settle();
    open.add(session);
    peak = Math.max(peak, open.size);
  };
  const finish = (session: string) => {
    if (!open.has(session)) return;
    settle();
    open.delete(session);
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    maxClients: 100,
    onMailFrom(_address, session, callback) {
      begin(session.id);
      callback();
    },
    onClose(session) {
      finish(session.id);
    },
    onData(stream, session, callback) {
      let head = "";
      stream.on("data", (chunk: Buffer) => {
        if (head.length < 4096) head += chunk.toString("latin1");
      });
      const accept = () => {
        finish(session.id);
        received += 1;
        if (received === 1) firstAt = performance.now();
        const id = /^Message-ID:\s*(\S+)/im.exec(head)?.[1];
        if (id) ids.add(id);
        if (received === target) {
          settle();
          areaAtTarget = area;
          reached(changedAt);
        }
        callback();
      };
      stream.on("end", () => {
        if (latencyMs > 0) setTimeout(accept, latencyMs);
        else accept();
      });
    },
  });
  server.on("error", () => undefined);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}/?ignoreTLS=true`,
    latencyMs,
    stats: () => ({ received, distinct: ids.size }),
    /** The integral of the messages in flight over time so far, in message-milliseconds. */
    inFlightArea(): number {
      settle();
      return area;
    },
    /** Since the last `expect`: the most messages in flight at once, and the integral when the n-th was answered. */
    inFlightAtArrival: () => ({ peak, area: areaAtTarget }),
    /** When the first message since the last `expect` was answered. */
    firstAt: () => firstAt,
    /** Resets the counts; resolves with the time the n-th message arrives (is answered). */
    expect(n: number): Promise<number> {
      received = 0;
      firstAt = Number.NaN;
      ids.clear();
      target = n;
      peak = open.size;
      return new Promise<number>((resolve) => {
        reached = resolve;
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Sink = Awaited<ReturnType<typeof startSink>>;

/** The messages in flight at the sink from `area0` (its integral at `start`) to the n-th message's answer at `at`: their time-weighted mean and peak. */
function inFlightOver(sink: Sink, start: number, area0: number, at: number): InFlight {
  const arrival = sink.inFlightAtArrival();
  return { mean: (arrival.area - area0) / (at - start), peak: arrival.peak };
}

/**
 * Waits for `arrival`; checks `state` every 5 s and fails at once when it says the rest can
 * never arrive, or past BENCH_TIMEOUT_SECONDS, with its description either way: no wait hangs.
 */
async function awaitArrival(arrival: Promise<number>, what: string, state: () => Promise<{ text: string; hopeless: boolean }>): Promise<number> {
  const deadline = Date.now() + TIMEOUT_SECONDS * 1000;
  for (;;) {
    // The state is read every few seconds only: its queries share the machine with what is measured.
    const at = await Promise.race([arrival, delay(5000).then(() => undefined)]);
    if (at !== undefined) return at;
    const now = await state();
    if (now.hopeless) throw new Error(`${what}: they can never all arrive: ${now.text}`);
    if (Date.now() > deadline) throw new Error(`timed out after ${TIMEOUT_SECONDS} s waiting for ${what}: ${now.text}`);
  }
}

function lineStartingWith(lines: readline.Interface, prefix: string): Promise<string> {
  return new Promise((resolve) => {
    const listener = (line: string) => {
      if (!line.startsWith(prefix)) return;
      lines.off("line", listener);
      resolve(line.slice(prefix.length));
    };
    lines.on("line", listener);
  });
}

/**
 * CPU per message from the CPU seconds each side actually got (the worker, the database server
 * and the sink; the baseline's sender and the sink): no ceiling from the machine's cores, which
 * other work shares. Undefined when the database server's CPU was not readable (not on this machine).
 */
function cpuPerMessage(size: { signups: number; bounded: Side; pipeline: Side }) {
  if (!(size.pipeline.database_cpu_s > 0)) return undefined;
  const pipelineMs = ((size.pipeline.sender_cpu_s + size.pipeline.database_cpu_s + size.pipeline.sink_cpu_s) / size.signups) * 1000;
  const baselineMs = ((size.bounded.sender_cpu_s + size.bounded.sink_cpu_s) / size.signups) * 1000;
  return {
    pipeline_ms: pipelineMs,
    baseline_ms: baselineMs,
    worker_ms: (size.pipeline.sender_cpu_s / size.signups) * 1000,
    sender_ms: (size.bounded.sender_cpu_s / size.signups) * 1000,
    database_ms: (size.pipeline.database_cpu_s / size.signups) * 1000,
  };
}

/** The bench database server's postmaster pid (from its data directory's postmaster.pid), or undefined when not readable here. */
async function postmasterPid(pool: pg.Pool): Promise<number | undefined> {
  try {
    const { rows } = await pool.query<{ dir: string }>("select current_setting('data_directory') as dir");
    const first = (await readFile(path.join(rows[0]?.dir ?? "", "postmaster.pid"), "utf8")).split("\n")[0];
    const pid = Number(first);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A process's /proc stat fields after its name (field 3 of proc(5) first: [1] is the parent pid,
 * [11] and [12] its user and system ticks, [13] and [14] those of its reaped children); undefined
 * when there is no such process here (not Linux, or it exited).
 */
async function procStat(pid: number | string | undefined): Promise<string[] | undefined> {
  try {
    const stat = await readFile(`/proc/${String(pid)}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

const ticks = (fields: readonly string[], ...at: number[]) => at.reduce((sum, i) => sum + Number(fields[i]), 0) / 100;

/**
 * CPU seconds the bench's database server has used so far: its postmaster's own and its reaped
 * children's, and its live children's (backends and background processes), from /proc (Linux);
 * NaN when the server is not on this machine or not readable. Other servers on the machine do not count.
 */
async function databaseCpuSeconds(postmaster: number | undefined): Promise<number> {
  const own = postmaster === undefined ? undefined : await procStat(postmaster);
  if (!own) return Number.NaN;
  let total = ticks(own, 11, 12, 13, 14);
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = await procStat(entry);
    if (fields && Number(fields[1]) === postmaster) total += ticks(fields, 11, 12);
  }
  return total;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); NaN elsewhere. */
async function cpuSeconds(pid: number | undefined): Promise<number> {
  const fields = await procStat(pid);
  return fields ? ticks(fields, 11, 12) : Number.NaN;
}

interface Side {
  seconds: number;
  messages_per_second: number;
  received: number;
  distinct: number;
  sender_cpu_s: number;
  sink_cpu_s: number;
  /** PostgreSQL's CPU meanwhile (NaN when not measurable). */
  database_cpu_s: number;
  load_average: string;
  /** The messages in flight at the sink, from the start to the last message's answer. */
  in_flight: InFlight;
  /** From the start (the restock, for the pipeline) to the first message's answer at the sink. */
  first_message_seconds: number;
}

interface InFlight {
  /** Time-weighted mean. */
  mean: number;
  peak: number;
}

/** The bench's cleanup after a pipeline round (not timed in its rate): the shop's rows deleted (the delete of its shops row, cascading), then `vacuum analyze`. */
interface Cleanup {
  delete_seconds: number;
  vacuum_seconds: number;
}

type PipelineSide = Side & { marked_seconds: number; ledger: LedgerCounts; writes: WritesDelta; cleanup: Cleanup; statements?: StatementCost[] };

interface RoundResult {
  round: number;
  first: "bounded" | "pipeline";
  bounded: Side;
  pipeline: PipelineSide;
  /** The pipeline's rate over the bounded baseline's in this round. */
  ratio: number;
  cpu_per_message: ReturnType<typeof cpuPerMessage>;
}

interface SizeResult {
  signups: number;
  /** The bounded baseline and the pipeline, interleaved. */
  rounds: RoundResult[];
  /** References, once after the rounds: every message handed to the pool at once. */
  unbounded: Side | undefined;
  /** Bounded, each message composed by nodemailer's MailComposer (the channel's composer until decision 0182). */
  composer: Side | undefined;
  /** The per-round ratios: the gate is on their median. */
  ratio: Spread;
  /** The pipeline's median rate over the unbounded reference's. */
  ratio_to_unbounded: number | undefined;
}

interface LedgerCounts {
  sent: number;
  pending: number;
  failed: number;
  blocked: number;
  blocked_reasons: Record<string, number>;
  waiting_signups: number;
}

async function ledgerCounts(pool: pg.Pool, shopId: string): Promise<LedgerCounts> {
  const { rows } = await pool.query<{ status: string; n: number }>("select status, count(*)::int as n from bis_ledger where shop_id = $1 group by 1", [shopId]);
  const counts: LedgerCounts = { sent: 0, pending: 0, failed: 0, blocked: 0, blocked_reasons: {}, waiting_signups: 0 };
  for (const row of rows) {
    if (row.status === "sent" || row.status === "pending" || row.status === "failed" || row.status === "blocked") counts[row.status] += row.n;
  }
  if (counts.blocked > 0) {
    const reasons = await pool.query<{ reason: string | null; n: number }>(
      "select blocked_reason as reason, count(*)::int as n from bis_notifications where shop_id = $1 and status = 'blocked' group by 1",
      [shopId],
    );
    for (const row of reasons.rows) counts.blocked_reasons[row.reason ?? "unknown"] = row.n;
  }
  counts.waiting_signups =
    (await pool.query<{ n: number }>("select count(*)::int as n from bis_signups where shop_id = $1 and status = 'waiting'", [shopId])).rows[0]?.n ?? 0;
  return counts;
}

const describeLedger = (c: LedgerCounts) =>
  `ledger sent ${c.sent}, blocked ${c.blocked}${c.blocked > 0 ? ` (${Object.entries(c.blocked_reasons).map(([r, n]) => `${r} ${n}`).join(", ")})` : ""}, failed ${c.failed}, pending ${c.pending}; ${c.waiting_signups} signups still waiting`;

/** A shop with one sold-out variant and `signups` waiting for it, on a plan whose monthly quota holds them all. */
async function seedShop(pool: pg.Pool, signups: number): Promise<{ shopId: string; domain: string }> {
  const shopId = await createShop(pool, "Alerts Bench Shop");
  const domain = `alerts-bench-${signups}-${randomBytes(3).toString("hex")}.platform.local`;
  await pool.query("update shops set platform_domain = $2 where id = $1", [shopId, domain]);
  // The default plan's quota (Growth, 25,000 a month) would block the rest as plan_limit.
  await setPlan(pool, shopId, "scale", signups > PLANS.scale.monthly_alert_limit ? signups : null);
  await pool.query("insert into bis_settings (shop_id, settings) values ($1, $2)", [
    shopId,
    JSON.stringify({ delivery: { batch_multiplier: 100, batch_interval_seconds: 3600 } }),
  ]);
  await seedOneVariantWithSignups(pool, shopId, "Bench Tee", "alert-", signups);
  await pool.query(
    "insert into inventory_levels (shop_id, inventory_item_id, location_id, available, platform_updated_at) values ($1, 'gid://shopify/InventoryItem/1', 'gid://shopify/Location/1', 0, now() - interval '1 hour')",
    [shopId],
  );
  await pool.query("analyze");
  return { shopId, domain };
}

try {
  const database = await acquireDatabase("bench_alerts");
  const pool = quietPool(database.url, 4);
  onCleanup(() => pool.end());
  await migrate(pool, createLogger("warn"));
  const postmaster = await postmasterPid(pool);
  const walInspect = await enableWalInspect(pool);
  const statements = process.env.BENCH_STATEMENTS === "1" ? await enableStatements(pool) : false;
  if (typeof statements === "string") err(`BENCH_STATEMENTS: pg_stat_statements does not answer here (${statements}); preload it on the server to see the statements`);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-alerts-"));
  onCleanup(() => rm(dataDir, { recursive: true, force: true }));
  const sink = await startSink();
  onCleanup(() => sink.close());
  // The pipeline's bound, from the service's own configuration (its default unless SEND_CONCURRENCY is set).
  const sendConcurrency = loadConfig({ ...process.env, DATABASE_URL: database.url }).SEND_CONCURRENCY;

  /** The baseline sender in its own process, its `count` messages rendered, sending to `sink`. */
  const startBaseline = (sink: Sink, count: number) =>
    startChild(
      "alerts-baseline.ts",
      { SMTP_URL: sink.url, SMTP_POOL_SIZE: String(POOL_SIZE), SEND_CONCURRENCY: String(sendConcurrency), BENCH_MESSAGES: String(count) },
      "BENCH_BASELINE_READY",
    );
  type Baseline = Awaited<ReturnType<typeof startBaseline>>;

  /** One run of the baseline sender, already started for `signups` messages to `sink`. */
  const baselineRound = async (baseline: Baseline, sink: Sink, signups: number, mode: "bounded" | "unbounded" | "composer"): Promise<Side> => {
    err(`${signups}: baseline, ${mode}${sink.latencyMs > 0 ? `, sink answering after ${sink.latencyMs} ms` : ""}`);
    let report: { sent: number; failed: number } | undefined;
    const done = lineStartingWith(baseline.lines, "BENCH_BASELINE_DONE ").then((line) => {
      report = JSON.parse(line) as { sent: number; failed: number };
    });
    const last = sink.expect(signups);
    const cpu0 = await cpuSeconds(baseline.proc.pid);
    const databaseCpu0 = await databaseCpuSeconds(postmaster);
    const sinkCpu0 = process.cpuUsage();
    const area0 = sink.inFlightArea();
    const start = performance.now();
    baseline.proc.stdin?.write(`${mode}\n`);
    const at = await awaitArrival(last, `${signups} messages of the ${mode} baseline`, async () => ({
      text: `the sink received ${sink.stats().received}${report ? `; the baseline reports ${report.sent} sent, ${report.failed} failed` : ""}`,
      hopeless: report !== undefined && report.failed > 0,
    }));
    const seconds = (at - start) / 1000;
    const side = {
      seconds,
      messages_per_second: signups / seconds,
      ...sink.stats(),
      sender_cpu_s: (await cpuSeconds(baseline.proc.pid)) - cpu0,
      sink_cpu_s: cpuOf(process.cpuUsage(sinkCpu0)),
      database_cpu_s: (await databaseCpuSeconds(postmaster)) - databaseCpu0,
      load_average: load(),
      in_flight: inFlightOver(sink, start, area0, at),
      first_message_seconds: (sink.firstAt() - start) / 1000,
    };
    await done;
    return side;
  };

  /** The baseline sender's warm-up: its first WARMUP messages, bounded, unmeasured. */
  const warmBaseline = async (baseline: Baseline, sink: Sink, signups: number): Promise<void> => {
    const n = Math.min(WARMUP, signups);
    if (n === 0) return;
    err(`${signups}: baseline, warming up with ${n} messages`);
    const done = lineStartingWith(baseline.lines, "BENCH_BASELINE_DONE ");
    const last = sink.expect(n);
    baseline.proc.stdin?.write(`warmup ${n}\n`);
    await awaitArrival(last, `${n} warm-up messages of the baseline`, async () => ({ text: `the sink received ${sink.stats().received}`, hopeless: false }));
    await done;
  };

  const restock = (domain: string) =>
    acceptWebhook(pool, {
      shopDomain: domain,
      topic: "inventory_levels/update",
      webhookId: randomUUID(),
      payload: { inventory_item_id: 1, location_id: 1, available: 1000, updated_at: new Date().toISOString() },
    });
  const sentCount = async (shopId: string) =>
    (await pool.query<{ n: number }>("select count(*)::int as n from bis_ledger where shop_id = $1 and status = 'sent'", [shopId])).rows[0]?.n ?? 0;
  /** Resolves once `n` of the shop's alerts are marked sent (with the time), checked every 50 ms. */
  const allMarked = async (shopId: string, n: number) => {
    while ((await sentCount(shopId)) < n) await delay(50);
    return performance.now();
  };

  /**
   * One pipeline run to `sink`: a shop of its own seeded (not timed), the service's worker started
   * and warmed up by a restock on a shop of WARMUP signups (not timed), the restock; the shops
   * deleted after (the measured one's delete timed apart).
   */
  const pipelineRound = async (sink: Sink, signups: number, warmupSignups: number): Promise<PipelineSide> => {
    err(`${signups}: seeding the shop`);
    const warmup = warmupSignups > 0 ? { ...(await seedShop(pool, warmupSignups)), signups: warmupSignups } : undefined;
    const { shopId, domain } = await seedShop(pool, signups);
    err(`${signups}: pipeline${sink.latencyMs > 0 ? `, sink answering after ${sink.latencyMs} ms` : ""}`);
    const worker = await startChild(
      "service-worker.ts",
      {
        DATABASE_URL: database.url,
        SMTP_URL: sink.url,
        SMTP_POOL_SIZE: String(POOL_SIZE),
        SEND_CONCURRENCY: String(sendConcurrency),
        DATA_DIR: dataDir,
        LOG_LEVEL: "warn",
        PLATFORM_API_SECRET: "bench-alerts-secret-0123456789abcdef",
      },
      "BENCH_WORKER_READY",
    );
    if (warmup) {
      err(`${signups}: pipeline, warming the worker up with ${warmup.signups} alerts`);
      const warmState = async () => ({ text: `the sink received ${sink.stats().received} of the warm-up; ${describeLedger(await ledgerCounts(pool, warmup.shopId))}`, hopeless: false });
      const warmArrival = sink.expect(warmup.signups);
      await restock(warmup.domain);
      await awaitArrival(warmArrival, `${warmup.signups} warm-up alerts`, warmState);
      await awaitArrival(allMarked(warmup.shopId, warmup.signups), `every one of ${warmup.signups} warm-up alerts marked sent`, warmState);
      await delay(STATS_IDLE_FLUSH_MS);
      // The seeding's and the warm-up's rows vacuumed now, as before an unwarmed round: not by an
      // autovacuum worker inside the measured window, on the database's CPU the bench counts.
      await pool.query("vacuum analyze");
    }
    const last = sink.expect(signups);
    const workerCpu0 = await cpuSeconds(worker.proc.pid);
    const databaseCpu0 = await databaseCpuSeconds(postmaster);
    const sinkCpu0 = process.cpuUsage();
    const writes0 = await markWrites(pool);
    const area0 = sink.inFlightArea();
    if (statements === true) await resetStatements(pool);
    const restockAt = performance.now();
    await restock(domain);
    const pipelineState = async () => {
      const ledger = await ledgerCounts(pool, shopId);
      // A blocked or failed message is final: with nothing pending the rest never comes.
      return { text: `the sink received ${sink.stats().received}; ${describeLedger(ledger)}`, hopeless: ledger.pending === 0 && ledger.blocked + ledger.failed > 0 };
    };
    const at = await awaitArrival(last, `${signups} alerts of the pipeline`, pipelineState);
    const seconds = (at - restockAt) / 1000;
    const workerCpu = (await cpuSeconds(worker.proc.pid)) - workerCpu0;
    const sinkCpu = cpuOf(process.cpuUsage(sinkCpu0));
    const databaseCpu = (await databaseCpuSeconds(postmaster)) - databaseCpu0;
    const pipelineStats = sink.stats();
    const pipelineLoad = load();
    const inFlight = inFlightOver(sink, restockAt, area0, at);
    const firstMessageSeconds = (sink.firstAt() - restockAt) / 1000;
    await awaitArrival(allMarked(shopId, signups), `every one of ${signups} alerts marked sent`, pipelineState);
    const markedSeconds = (performance.now() - restockAt) / 1000;
    const costliest = statements === true ? await topStatements(pool) : undefined;
    await stopChild(worker.proc, "SIGTERM");
    // The worker's backends flushed their counters as they exited; the intake's, when idle.
    const writes = await writesSince(pool, writes0, walInspect);
    const ledger = await ledgerCounts(pool, shopId);
    // The next round's pipeline finds the tables as this one did: this shop's rows deleted and
    // vacuumed away. Timed, to show the delete stays linear in the rows it deletes (issue 30).
    if (warmup) await pool.query("delete from shops where id = $1", [warmup.shopId]);
    const deleteStart = performance.now();
    await pool.query("delete from shops where id = $1", [shopId]);
    const vacuumStart = performance.now();
    await pool.query("vacuum analyze");
    const cleanupDone = performance.now();
    return {
      seconds,
      messages_per_second: signups / seconds,
      ...pipelineStats,
      sender_cpu_s: workerCpu,
      sink_cpu_s: sinkCpu,
      database_cpu_s: databaseCpu,
      load_average: pipelineLoad,
      in_flight: inFlight,
      first_message_seconds: firstMessageSeconds,
      marked_seconds: markedSeconds,
      ledger,
      writes,
      statements: costliest,
      cleanup: { delete_seconds: (vacuumStart - deleteStart) / 1000, vacuum_seconds: (cleanupDone - vacuumStart) / 1000 },
    };
  };

  const describeRound = (label: string, r: Round<"bounded" | "pipeline", Side>) =>
    err(
      `${label}: round ${r.round} (${r.order[0]} first): bounded ${r.figures.bounded.messages_per_second.toFixed(0)} messages/s, pipeline ${r.figures.pipeline.messages_per_second.toFixed(0)} messages/s, ` +
        `${percent(r.figures.pipeline.messages_per_second / r.figures.bounded.messages_per_second)}; load ${r.load_1m.toFixed(2)}`,
    );
  const toRoundResult =
    (signups: number) =>
    (r: Round<"bounded" | "pipeline", Side>): RoundResult => {
      const pipeline = r.figures.pipeline as PipelineSide;
      const ratio = pipeline.messages_per_second / r.figures.bounded.messages_per_second;
      return { round: r.round, first: r.order[0] ?? "bounded", bounded: r.figures.bounded, pipeline, ratio, cpu_per_message: cpuPerMessage({ signups, bounded: r.figures.bounded, pipeline }) };
    };

  // 1. Alert throughput at each size: the bounded baseline and the pipeline interleaved, round by
  // round; then, once, the references (unbounded, composer).
  const runs: SizeResult[] = [];
  for (const signups of SIZES) {
    err(`${signups}: baseline, rendering ${signups} messages`);
    const baseline = await startBaseline(sink, signups);
    await warmBaseline(baseline, sink, signups);
    const rounds = await runRounds<"bounded" | "pipeline", Side>({
      sides: ["bounded", "pipeline"],
      run: (side) => (side === "bounded" ? baselineRound(baseline, sink, signups, "bounded") : pipelineRound(sink, signups, WARMUP)),
      onRound: (r) => describeRound(String(signups), r),
    });
    const unbounded = signups <= UNBOUNDED_MAX ? await baselineRound(baseline, sink, signups, "unbounded") : undefined;
    const composer = signups <= UNBOUNDED_MAX ? await baselineRound(baseline, sink, signups, "composer") : undefined;
    // Its stdin closed, the baseline closes its transport and exits.
    baseline.proc.stdin?.end();
    await stopChild(baseline.proc, "SIGTERM", 10_000);

    const perRound = rounds.map(toRoundResult(signups));
    const ratios = perRound.map((r) => r.ratio);
    const pipelineRate = median(perRound.map((r) => r.pipeline.messages_per_second));
    runs.push({
      signups,
      rounds: perRound,
      unbounded,
      composer,
      ratio: spread(ratios),
      ratio_to_unbounded: unbounded ? pipelineRate / unbounded.messages_per_second : undefined,
    });
  }

  // 2. At a provider's pace: the same pair against a sink that answers each message after
  // BENCH_PROVIDER_LATENCY_MS, so the rate is bound by the messages kept in flight, not by CPU.
  const slowSink = await startSink(PROVIDER_LATENCY_MS);
  onCleanup(() => slowSink.close());
  err(`provider latency: baseline, rendering ${PROVIDER_SIGNUPS} messages`);
  // Not warmed up: at a provider's pace the rate is bound by the messages in flight, not by CPU.
  const slowBaseline = await startBaseline(slowSink, PROVIDER_SIGNUPS);
  const slowRounds = await runRounds<"bounded" | "pipeline", Side>({
    sides: ["bounded", "pipeline"],
    rounds: PROVIDER_ROUNDS,
    run: (side) => (side === "bounded" ? baselineRound(slowBaseline, slowSink, PROVIDER_SIGNUPS, "bounded") : pipelineRound(slowSink, PROVIDER_SIGNUPS, 0)),
    onRound: (r) => describeRound(`${PROVIDER_SIGNUPS} at ${PROVIDER_LATENCY_MS} ms`, r),
  });
  slowBaseline.proc.stdin?.end();
  await stopChild(slowBaseline.proc, "SIGTERM", 10_000);
  const slowPerRound = slowRounds.map(toRoundResult(PROVIDER_SIGNUPS));
  const provider = {
    latency_ms: PROVIDER_LATENCY_MS,
    signups: PROVIDER_SIGNUPS,
    ideal_messages_per_second: POOL_SIZE / (PROVIDER_LATENCY_MS / 1000),
    rounds: slowPerRound,
    ratio: spread(slowPerRound.map((r) => r.ratio)),
  };

  // 3. The reminder scan over 1,000,000 signups.
  err(`reminders: generating ${REMINDER_SIGNUPS} signups`);
  const remindShop = await createShop(pool, "Reminder Bench Shop");
  // Its 100,000 initial alerts of the last two days count against the monthly quota: a plan above them (src/account/plans.ts).
  await pool.query("insert into account_settings (shop_id, plan) values ($1, 'scale')", [remindShop]);
  await pool.query("update shops set platform_domain = 'reminder-bench.platform.local' where id = $1", [remindShop]);
  await pool.query("insert into bis_settings (shop_id, settings) values ($1, $2)", [remindShop, JSON.stringify({ delivery: { reminder_delay_hours: 48 } })]);
  await pool.query("insert into message_stage_settings (shop_id, area, stage, enabled) values ($1, 'back_in_stock', 'reminder', true)", [remindShop]);
  await pool.query(
    "insert into products (shop_id, id, title, handle, status, platform_updated_at) values ($1, 'gid://shopify/Product/1', 'Reminder Tee', 'reminder-tee', 'ACTIVE', now())",
    [remindShop],
  );
  await pool.query(
    `insert into variants (shop_id, id, legacy_id, product_id, title, sku, price, inventory_policy, inventory_item_id, platform_updated_at)
     select $1, 'gid://shopify/ProductVariant/' || v, v, 'gid://shopify/Product/1', 'Size ' || v, 'SKU-' || v, 10, 'DENY', 'gid://shopify/InventoryItem/' || v, now()
     from generate_series(1, 1000) v`,
    [remindShop],
  );
  await pool.query(
    `insert into inventory_levels (shop_id, inventory_item_id, location_id, available, platform_updated_at)
     select $1, 'gid://shopify/InventoryItem/' || v, 'gid://shopify/Location/1', 5, now() from generate_series(1, 1000) v`,
    [remindShop],
  );
  const generateStart = performance.now();
  // Every 10th signup was alerted (its initial sent) within the last 47 hours; every 1,000th, 49 hours ago: due.
  await pool.query(
    `insert into bis_signups (shop_id, variant_id, channel, contact, consent, status, created_at, notified_at)
     select $1, 'gid://shopify/ProductVariant/' || (1 + i % 1000), 'email', 'remind-' || i || '@example.com', true,
            case when i % 10 = 0 then 'notified' else 'waiting' end,
            now() - interval '30 days' + make_interval(secs => i),
            case when i % 1000 = 0 then now() - interval '49 hours'
                 when i % 10 = 0 then now() - make_interval(secs => (i % 169200)) end
     from generate_series(1, $2) i`,
    [remindShop, REMINDER_SIGNUPS],
  );
  await pool.query(
    `insert into bis_ledger (shop_id, signup_id, stage, status, attempts, sent_at)
     select shop_id, id, 'initial', 'sent', 1, notified_at from bis_signups where shop_id = $1 and status = 'notified'`,
    [remindShop],
  );
  await pool.query(
    "insert into bis_reminder_queue (signup_id, shop_id, initial_sent_at) select id, shop_id, notified_at from bis_signups where shop_id = $1 and status = 'notified'",
    [remindShop],
  );
  await pool.query("analyze bis_signups");
  await pool.query("analyze bis_reminder_queue");
  await pool.query("analyze bis_ledger");
  const generated = (performance.now() - generateStart) / 1000;
  const { rows: counts } = await pool.query<{ signups: number; queued: number; due: number }>(
    `select (select count(*) from bis_signups where shop_id = $1)::int as signups,
            (select count(*) from bis_reminder_queue where shop_id = $1)::int as queued,
            (select count(*) from bis_reminder_queue where shop_id = $1 and initial_sent_at <= now() - interval '48 hours')::int as due`,
    [remindShop],
  );
  const sizes = counts[0] ?? { signups: 0, queued: 0, due: 0 };

  const client = await pool.connect();
  let plan: string[];
  let dueQueryMs: number;
  try {
    await client.query("begin");
    const queryStart = performance.now();
    await client.query(REMINDER_DUE_QUERY, [remindShop, 48, 500]);
    dueQueryMs = performance.now() - queryStart;
    await client.query("rollback");
    await client.query("begin");
    const { rows } = await client.query<{ "QUERY PLAN": string }>(`explain (analyze, buffers) ${REMINDER_DUE_QUERY}`, [remindShop, 48, 500]);
    plan = rows.map((r) => r["QUERY PLAN"]);
    await client.query("rollback");
  } finally {
    client.release();
  }

  const config = loadConfig({ DATABASE_URL: database.url, SMTP_URL: sink.url, SMTP_POOL_SIZE: String(POOL_SIZE), DATA_DIR: dataDir, LOG_LEVEL: "warn" });
  const log = createLogger("warn");
  const channels = createChannels(config, log);
  onCleanup(() => channels.close());
  const platform = new PlatformRuntime({ secretsKey: randomBytes(32), webhookSecret: "bench-alerts-secret-0123456789abcdef", timeoutMs: 5000, log });
  const reminderLast = sink.expect(sizes.due);
  const scanStart = performance.now();
  const scan = await scanReminders({ pool, log, config, platform, channels });
  const scanMs = performance.now() - scanStart;
  await awaitArrival(reminderLast, `${sizes.due} reminders`, async () => ({
    text: `sink received ${sink.stats().received} of ${sizes.due}; the scan claimed ${scan.claimed} and sent ${scan.sent.sent}`,
    hopeless: true,
  }));

  out();
  out(`database: ${database.description}; ${os.cpus().length} CPUs`);
  out(
    `alerts: one restock of one variant (multiplier 100 x 1,000 units: one batch), SMTP sink in the bench process, pool of ${POOL_SIZE} connections, SEND_CONCURRENCY ${sendConcurrency}`,
  );
  const header = "signups  mode        received  distinct   seconds  first s  messages/s  in flight (mean/peak)  sender CPU s  sink CPU s  database CPU s  load average";
  out(header);
  const row = (signups: number, mode: string, side: Side) =>
    `${String(signups).padStart(7)}  ${mode.padEnd(10)} ${String(side.received).padStart(9)} ${String(side.distinct).padStart(9)} ${side.seconds.toFixed(2).padStart(9)} ${side.first_message_seconds.toFixed(2).padStart(8)} ${side.messages_per_second.toFixed(0).padStart(11)} ${`${side.in_flight.mean.toFixed(2)}/${side.in_flight.peak}`.padStart(22)} ${side.sender_cpu_s.toFixed(1).padStart(13)} ${side.sink_cpu_s.toFixed(1).padStart(11)} ${side.database_cpu_s.toFixed(1).padStart(15)}  ${side.load_average}`;
  const roundRows = (signups: number, rounds: readonly RoundResult[]) => {
    for (const r of rounds) {
      for (const mode of r.first === "bounded" ? (["bounded", "pipeline"] as const) : (["pipeline", "bounded"] as const)) out(row(signups, `${r.round} ${mode}`, r[mode]));
    }
  };
  for (const size of runs) {
    roundRows(size.signups, size.rounds);
    for (const [mode, side] of [["unbounded", size.unbounded], ["composer", size.composer]] as const) {
      out(side ? row(size.signups, mode, side) : `${String(size.signups).padStart(7)}  ${mode.padEnd(10)} (skipped above BENCH_UNBOUNDED_MAX ${UNBOUNDED_MAX})`);
    }
  }
  let met = true;
  for (const size of runs) {
    const ok = gate({
      name: `${size.signups} signups: the pipeline's rate (restock webhook to the last message received) over the bounded baseline's, per round`,
      values: size.rounds.map((r) => r.ratio),
      target: TARGET,
      bound: "min",
    });
    met &&= ok;
    out(
      `${size.signups} signups: ${size.ratio_to_unbounded === undefined ? "no unbounded reference" : `the pipeline's median rate is ${percent(size.ratio_to_unbounded)} of the unbounded reference's`}; ` +
        `all ${size.signups} marked sent in the ledger a median ${median(size.rounds.map((r) => r.pipeline.marked_seconds)).toFixed(2)} s after the restock`,
    );
    const cpu = size.rounds.flatMap((r) => (r.cpu_per_message ? [r.cpu_per_message] : []));
    if (cpu.length > 0) {
      out(
        `${size.signups} signups, CPU per message from the CPU seconds each side got (medians over the rounds): the pipeline ${median(cpu.map((c) => c.pipeline_ms)).toFixed(2)} ms ` +
          `(worker ${median(cpu.map((c) => c.worker_ms)).toFixed(2)}, database ${median(cpu.map((c) => c.database_ms)).toFixed(2)}, and the sink) against the bounded baseline's ${median(cpu.map((c) => c.baseline_ms)).toFixed(2)} ms (its sender, the sink)`,
      );
      const workerRatio = spread(cpu.map((c) => c.worker_ms / c.sender_ms));
      out(
        `${size.signups} signups, the worker's CPU per message over the baseline sender's (issue 30's target: within 1.30x): median ${times(workerRatio.median)} ` +
          `(${median(cpu.map((c) => c.worker_ms)).toFixed(2)} ms against ${median(cpu.map((c) => c.sender_ms)).toFixed(2)} ms; min ${times(workerRatio.min)}, max ${times(workerRatio.max)})`,
      );
    }
    for (const r of size.rounds) {
      out(`${size.signups} signups, round ${r.round}, written by the pipeline: ${describePerAlert(r.pipeline.writes, size.signups)}`);
      out(`  by table: ${describeTables(r.pipeline.writes, size.signups)}`);
      if (r.pipeline.writes.wal_by_type) out(`  WAL records by kind: ${describeWal(r.pipeline.writes, size.signups)}`);
      if (r.pipeline.statements) {
        out(`  the database's costliest statements (pg_stat_statements, restock to the last mark):`);
        for (const line of describeStatements(r.pipeline.statements, size.signups)) out(line);
      }
    }
    out(
      `${size.signups} signups, the cleanup after each pipeline round (not in its rate): ` +
        size.rounds
          .map((r) => `round ${r.round} delete ${r.pipeline.cleanup.delete_seconds.toFixed(2)} s (${perSignupUs(r.pipeline.cleanup, size.signups).toFixed(1)} µs a signup), vacuum analyze ${r.pipeline.cleanup.vacuum_seconds.toFixed(2)} s, load ${r.pipeline.load_average}`)
          .join("; "),
    );
  }
  if (runs.length > 1) {
    // Linear: the time a signup takes to delete does not grow with the number deleted.
    const perSize = runs.map((size) => ({ signups: size.signups, us: median(size.rounds.map((r) => perSignupUs(r.pipeline.cleanup, size.signups))) }));
    const first = perSize[0];
    out(
      `the cleanup's delete per signup (median over the rounds): ${perSize.map((p) => `${p.signups}: ${p.us.toFixed(1)} µs`).join(", ")}` +
        (first ? `; ${perSize.slice(1).map((p) => `${times(p.us / first.us)} at ${p.signups} against ${first.signups}`).join(", ")} (1.00x is linear)` : ""),
    );
  }

  out();
  out(
    `at a provider's pace: an SMTP sink answering each message ${provider.latency_ms} ms after it was sent, ${provider.signups} signups, pool of ${POOL_SIZE} connections, SEND_CONCURRENCY ${sendConcurrency}: ` +
      `the ideal is ${provider.ideal_messages_per_second.toFixed(0)} messages/s (${POOL_SIZE} connections / ${(provider.latency_ms / 1000).toFixed(3)} s, each holding one message at a time)`,
  );
  out(header);
  roundRows(provider.signups, provider.rounds);
  for (const r of provider.rounds) {
    out(
      `round ${r.round}: pipeline ${r.pipeline.messages_per_second.toFixed(1)} messages/s (${percent(r.pipeline.messages_per_second / provider.ideal_messages_per_second)} of the ideal), ` +
        `bounded baseline ${r.bounded.messages_per_second.toFixed(1)} messages/s (${percent(r.bounded.messages_per_second / provider.ideal_messages_per_second)}), ratio ${percent(r.ratio)}; ` +
        `in flight at the sink, mean (peak): pipeline ${r.pipeline.in_flight.mean.toFixed(2)} (${r.pipeline.in_flight.peak}), baseline ${r.bounded.in_flight.mean.toFixed(2)} (${r.bounded.in_flight.peak}), ` +
        `of ${POOL_SIZE} connections and SEND_CONCURRENCY ${sendConcurrency}; a message's time at the sink (mean in flight / rate): pipeline ${((r.pipeline.in_flight.mean / r.pipeline.messages_per_second) * 1000).toFixed(1)} ms, baseline ${((r.bounded.in_flight.mean / r.bounded.messages_per_second) * 1000).toFixed(1)} ms`,
    );
  }
  const providerMet = gate({
    name: `${provider.signups} signups at ${provider.latency_ms} ms a message: the pipeline's rate over the bounded baseline's against the same slow sink, per round`,
    values: provider.rounds.map((r) => r.ratio),
    target: TARGET,
    bound: "min",
  });
  out();
  out(
    `reminder scan over ${sizes.signups.toLocaleString("en")} signups (generated in ${generated.toFixed(1)} s; ${sizes.queued.toLocaleString("en")} awaiting their reminder, ${sizes.due.toLocaleString("en")} due): ` +
      `${scanMs.toFixed(0)} ms for the whole scan (${scan.claimed} claimed, ${scan.sent.sent} sent), due query (first page of 500) ${dueQueryMs.toFixed(1)} ms`,
  );
  out("EXPLAIN (ANALYZE, BUFFERS) of the due query:");
  for (const line of plan) out(`  ${line}`);
  const usesIndex = plan.some((l) => l.includes("bis_reminder_queue_due"));
  await writeFile(
    resultsFile("alerts.json"),
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        database: database.description,
        smtp_pool_size: POOL_SIZE,
        send_concurrency: sendConcurrency,
        target_ratio: TARGET,
        rounds: ROUNDS,
        alerts: runs,
        provider_latency: provider,
        reminder_scan: { ...sizes, scan_ms: scanMs, due_query_ms: dueQueryMs, claimed: scan.claimed, sent: scan.sent.sent, uses_index: usesIndex, plan },
      },
      null,
      2,
    )}\n`,
  );
  const allSent = (signups: number, rounds: readonly RoundResult[]) =>
    rounds.every((r) => r.pipeline.distinct === signups && r.pipeline.received === signups && r.pipeline.ledger.sent === signups);
  const ok =
    met &&
    providerMet &&
    runs.every((size) => allSent(size.signups, size.rounds)) &&
    allSent(provider.signups, provider.rounds) &&
    usesIndex &&
    scan.sent.sent === sizes.due;
  if (!ok) process.exitCode = 1;
} finally {
  await cleanup();
}
