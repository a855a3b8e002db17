/**
 * `npm run bench:catalog`: a full catalog sync of a 100,000-variant store from the emulator
 * (default 20,000 products x 5 variants) beside its baseline, paging the same data with the same
 * queries without writing it. Each run is its own process (peak RSS is that process's); the
 * emulator runs in a third. The two sides run interleaved (bench/rounds.ts): BENCH_ROUNDS rounds,
 * each running both, the baseline first in odd rounds and the sync first in even ones; before
 * each sync the shop's mirror is emptied (its rows deleted, the tables vacuumed), so that every
 * sync is a first full sync into empty tables. Prints every round's variants/s, peak RSS and share
 * of throttled calls, and the median of the per-round ratios with its spread (min-max).
 * Targets: the sync's rate >= 50% of the baseline's (the median over the rounds); in every round
 * the sync's peak RSS < 300 MB, its throttled calls < 1% and its variants the baseline's.
 *
 * Environment: BENCH_ROUNDS (5), BENCH_PRODUCTS, BENCH_VARIANTS_PER_PRODUCT, BENCH_BUCKET_MAX,
 * BENCH_RESTORE_RATE (the emulator's cost bucket), DATABASE_URL or a scratch database (see bench/lib.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { createApiKey, createShop } from "../src/db/api-keys.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/logger.ts";
import { acquireDatabase, cleanup, onCleanup, quietPool, serviceNodeFlags } from "./lib.ts";
import { gate, median, percent, roundsFromEnv, runRounds, table } from "./rounds.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROUNDS = roundsFromEnv();
const TARGET_RATIO = 0.5;
const RSS_BOUND_MB = 300;
const THROTTLED_BOUND = 0.01;
/** What a full sync writes for a shop: emptied before each sync. */
const MIRROR_TABLES = ["inventory_levels", "variants", "products", "collections", "markets", "locations", "catalog_sync_state"];

interface RunResult {
  mode: string;
  variants: number;
  seconds: number;
  variants_per_second: number;
  peak_rss_mb: number;
  calls: number;
  throttled: number;
  throttled_share: number;
}

/** Runs a bench script as a child; resolves with the JSON after `prefix` on its stdout. */
function child(script: string, args: string[], env: Record<string, string>, prefix: string, keepRunning: boolean): Promise<{ value: unknown; process: ChildProcess }> {
  const proc = spawn(process.execPath, [...serviceNodeFlags(), path.join(HERE, script), ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: proc.stdout });
    lines.on("line", (line) => {
      if (line.startsWith(prefix)) resolve({ value: JSON.parse(line.slice(prefix.length)) as unknown, process: proc });
    });
    proc.once("exit", (code) => {
      if (!keepRunning || code !== 0) reject(new Error(`${script} ${args.join(" ")} exited with ${String(code)} before reporting`));
    });
  });
}

try {
  const database = await acquireDatabase("bench_catalog");
  const pool = quietPool(database.url, 2);
  onCleanup(() => pool.end());
  await migrate(pool, createLogger("warn"));
  const shopId = await createShop(pool, "Catalog Bench Shop");
  await createApiKey(pool, shopId);

  const emulatorStart = performance.now();
  const emulator = await child("catalog-emulator.ts", [], {}, "BENCH_EMULATOR ", true);
  onCleanup(async () => {
    emulator.process.kill("SIGTERM");
  });
  const { graphqlUrl, accessToken } = emulator.value as { graphqlUrl: string; accessToken: string };
  process.stderr.write(`emulator seeded and listening in ${((performance.now() - emulatorStart) / 1000).toFixed(1)} s\n`);

  /** The shop's mirror emptied, as before its first full sync. */
  const emptyMirror = async () => {
    for (const name of MIRROR_TABLES) await pool.query(`delete from ${name} where shop_id = $1`, [shopId]);
    await pool.query(`vacuum analyze ${MIRROR_TABLES.join(", ")}`);
  };

  const env = { DATABASE_URL: database.url, BENCH_SHOP_ID: shopId, BENCH_GRAPHQL_URL: graphqlUrl, BENCH_ACCESS_TOKEN: accessToken };
  const rounds = await runRounds<"baseline" | "sync", RunResult>({
    sides: ["baseline", "sync"],
    rounds: ROUNDS,
    run: async (mode, round) => {
      if (mode === "sync") await emptyMirror();
      process.stderr.write(`round ${round}/${ROUNDS}: ${mode}\n`);
      return (await child("catalog-run.ts", [mode], env, "BENCH_RESULT ", false)).value as RunResult;
    },
    onRound: (r) =>
      process.stderr.write(
        `round ${r.round}: baseline ${r.figures.baseline.variants_per_second.toFixed(0)} variants/s, sync ${r.figures.sync.variants_per_second.toFixed(0)} variants/s, ` +
          `${percent(r.figures.sync.variants_per_second / r.figures.baseline.variants_per_second)} (${r.order[0]} first; load ${r.load_1m.toFixed(2)})\n`,
      ),
  });

  const ratios = rounds.map((r) => r.figures.sync.variants_per_second / r.figures.baseline.variants_per_second);
  const row = (label: string, r: RunResult) => [
    label,
    String(r.variants),
    r.seconds.toFixed(1),
    r.variants_per_second.toFixed(0),
    r.peak_rss_mb.toFixed(0),
    String(r.calls),
    `${(r.throttled_share * 100).toFixed(2)}%`,
  ];
  const rows: string[][] = [["round mode", "variants", "seconds", "variants/s", "peak RSS MB", "calls", "throttled"]];
  for (const r of rounds) {
    for (const mode of r.order) rows.push(row(`${r.round} ${mode}`, r.figures[mode]));
    rows.push([`${r.round} sync/baseline`, "", "", percent(ratios[r.round - 1] ?? Number.NaN), "", "", ""]);
  }
  const syncs = rounds.map((r) => r.figures.sync);
  const peakRss = Math.max(...syncs.map((s) => s.peak_rss_mb));
  const throttled = Math.max(...syncs.map((s) => s.throttled_share));
  const sameVariants = rounds.every((r) => r.figures.sync.variants === r.figures.baseline.variants);
  process.stdout.write(`\ndatabase: ${database.description}; ${ROUNDS} rounds, sides interleaved (first side alternating)\n`);
  process.stdout.write(`${table(rows)}\n`);
  process.stdout.write(
    `\nmedian variants/s: baseline ${median(rounds.map((r) => r.figures.baseline.variants_per_second)).toFixed(0)}, sync ${median(syncs.map((s) => s.variants_per_second)).toFixed(0)}; ` +
      `the sync's largest peak RSS ${peakRss.toFixed(0)} MB (target < ${RSS_BOUND_MB}); its largest throttled share ${(throttled * 100).toFixed(2)}% of calls (target < ${THROTTLED_BOUND * 100}%)` +
      `${sameVariants ? "" : "; the sync's variants differ from the baseline's in some round"}\n`,
  );
  const met = gate({ name: "full sync's share of the baseline's rate, per round", values: ratios, target: TARGET_RATIO, bound: "min" });
  const ok = met && peakRss < RSS_BOUND_MB && throttled < THROTTLED_BOUND && sameVariants;
  if (!ok) process.exitCode = 1;
} finally {
  await cleanup();
}
