/** What every benchmark needs: env numbers, cleanup on exit, a scratch database, peak RSS. */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { ensureEmbeddedPostgres } from "../src/db/embedded.ts";

export function positiveIntEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
}

// Every resource registers its undo; they run in reverse order, once, also on Ctrl-C.
const cleanups: (() => Promise<void>)[] = [];
let cleaning: Promise<void> | undefined;

export function onCleanup(undo: () => Promise<void>): void {
  cleanups.push(undo);
}

export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const undo of cleanups.reverse()) {
      await undo().catch((error: unknown) => process.stderr.write(`cleanup failed: ${String(error)}\n`));
    }
  })();
  return cleaning;
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: cleaning up\n`);
    void cleanup().finally(() => process.exit(130));
  });
}

const LOCAL_ADMIN_URL = process.env.BENCH_LOCAL_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

async function withAdmin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
  client.on("error", () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface BenchDatabase {
  url: string;
  description: string;
}

export interface AcquireOptions {
  /** DATABASE_URL as is when set (default true); a run that installs its own objects passes false. */
  useDatabaseUrl?: boolean;
  /** The server to create the scratch database on (default BENCH_LOCAL_PG_URL or postgres@127.0.0.1:5432); null: none, the embedded server. */
  adminUrl?: string | null;
  /** The embedded server's port and data directory (defaults BENCH_EMBEDDED_PG_PORT or 54349, .data/bench). */
  embeddedPort?: number;
  embeddedDataDir?: string;
}

/**
 * DATABASE_URL as is; else a scratch database on the local server (dropped at cleanup); else the
 * embedded server.
 */
export async function acquireDatabase(prefix: string, options: AcquireOptions = {}): Promise<BenchDatabase> {
  if ((options.useDatabaseUrl ?? true) && process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, description: "DATABASE_URL" };
  const adminUrl = options.adminUrl === undefined ? LOCAL_ADMIN_URL : options.adminUrl;
  const local = adminUrl !== null && (await withAdmin(adminUrl, async (client) => (await client.query("select 1")).rowCount === 1).catch(() => false));
  if (local && adminUrl !== null) {
    const name = `${prefix}_${randomBytes(6).toString("hex")}`;
    await withAdmin(adminUrl, (client) => client.query(`create database ${pg.escapeIdentifier(name)}`));
    onCleanup(() => withAdmin(adminUrl, async (client) => void (await client.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`))));
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return { url: url.toString(), description: `scratch database ${name} on ${url.host}` };
  }
  const embedded = await ensureEmbeddedPostgres({
    dataDir: path.resolve(options.embeddedDataDir ?? ".data/bench"),
    port: options.embeddedPort ?? positiveIntEnv("BENCH_EMBEDDED_PG_PORT", 54349),
    database: prefix,
    log: (message) => process.stderr.write(`${message}\n`),
  });
  onCleanup(() => embedded.stop());
  return { url: embedded.url, description: `embedded PostgreSQL on port ${embedded.port}` };
}

export function quietPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on("error", () => undefined);
  pool.on("connect", (client) => client.on("error", () => undefined));
  return pool;
}

/** Peak resident set of this process so far, in MB (getrusage's ru_maxrss). */
export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/**
 * The V8 flags the service's processes run with (package.json `worker` script), so a benchmark's
 * child processes are measured as production runs them.
 */
export function serviceNodeFlags(): string[] {
  const scripts = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { scripts: Record<string, string> }).scripts;
  return [...(scripts.worker ?? "").split(/\s+/).filter((token) => token.startsWith("--") && token !== "--worker"), ...(process.env.BENCH_CHILD_FLAGS ?? "").split(/\s+/).filter(Boolean)];
}

/**
 * One product with one variant (gid ProductVariant/1, inventory item 1) for a shop, and `waiting`
 * back-in-stock signups on it, oldest first, e-mailed to `<prefix><n>@example.com`.
 */
export async function seedOneVariantWithSignups(pool: pg.Pool, shopId: string, title: string, prefix: string, waiting: number): Promise<void> {
  await pool.query(
    "insert into products (shop_id, id, title, handle, status, platform_updated_at) values ($1, 'gid://shopify/Product/1', $2, 'product-1', 'ACTIVE', now())",
    [shopId, title],
  );
  await pool.query(
    `insert into variants (shop_id, id, legacy_id, product_id, title, sku, price, inventory_policy, inventory_item_id, platform_updated_at)
     values ($1, 'gid://shopify/ProductVariant/1', 1, 'gid://shopify/Product/1', 'Size 1', 'SKU-1', 10, 'DENY', 'gid://shopify/InventoryItem/1', now())`,
    [shopId],
  );
  await pool.query(
    `insert into bis_signups (shop_id, variant_id, channel, contact, consent, created_at)
     select $1, 'gid://shopify/ProductVariant/1', 'email', $2 || i || '@example.com', true, now() - interval '1 day' + make_interval(secs => i)
     from generate_series(1, $3) i`,
    [shopId, prefix, waiting],
  );
}

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));

/**
 * Starts a script of bench/ as a child process with the service's V8 flags (killed at cleanup);
 * resolves at its first stdout line starting with `ready`, with its lines.
 */
export function startChild(script: string, env: Record<string, string>, ready: string): Promise<{ proc: ChildProcess; lines: readline.Interface }> {
  const proc = spawn(process.execPath, [...serviceNodeFlags(), path.join(BENCH_DIR, script)], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  onCleanup(async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
  });
  const lines = readline.createInterface({ input: proc.stdout as NodeJS.ReadableStream });
  return new Promise((resolve, reject) => {
    lines.on("line", (line) => {
      if (line.startsWith(ready)) resolve({ proc, lines });
    });
    proc.once("exit", (code) => reject(new Error(`${script} exited with ${String(code)} before ${ready}`)));
  });
}

/** Stops a child and waits for it to exit: `signal` now, or after `graceMs` if it has not exited by then; SIGKILL 30 s later. */
export async function stopChild(proc: ChildProcess, signal: NodeJS.Signals, graceMs = 0): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  const signalTimer = setTimeout(() => proc.kill(signal), graceMs);
  const killTimer = setTimeout(() => proc.kill("SIGKILL"), graceMs + 30_000);
  await exited;
  clearTimeout(signalTimer);
  clearTimeout(killTimer);
}
