/**
 * How a benchmark measures a side of the service against its baseline (issue 16): interleaved,
 * round by round, never one side after the other. BENCH_ROUNDS rounds (default 5); each round
 * runs every side once, the first side rotating (two sides: alternating), so that a swing of the
 * machine's load falls on both sides of a round rather than on one side of the whole run, and
 * neither side always finds what the other just warmed. The figure gated on is the median of the
 * per-round ratios, printed with its spread (min-max), or for a bound promised in every round
 * (bench:latency's p99) each round's figure, the worst printed; a benchmark exits non-zero when
 * it misses its target.
 *
 * Also: the median, an aligned table, and where a benchmark writes its results file
 * (BENCH_RESULTS_DIR, default bench/results: a verification run can write elsewhere).
 */
import { mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { positiveIntEnv } from "./lib.ts";

/** BENCH_ROUNDS, default 5. */
export function roundsFromEnv(fallback = 5): number {
  return positiveIntEnv("BENCH_ROUNDS", fallback);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
  values: number[];
}

export function spread(values: readonly number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), values: [...values] };
}

/** The sides in the order round `round` (1-based) runs them: rotated by one a round, so each side goes first in turn. */
export function orderOf<S>(sides: readonly S[], round: number): S[] {
  const shift = (round - 1) % sides.length;
  return [...sides.slice(shift), ...sides.slice(0, shift)];
}

export interface Round<S extends string, F> {
  round: number;
  /** The order the sides ran in. */
  order: S[];
  figures: Record<S, F>;
  /** The 1-minute load average at the end of the round. */
  load_1m: number;
}

/**
 * Runs `rounds` rounds (default BENCH_ROUNDS); each runs every side once, in orderOf's order,
 * `run(side, round)` answering its figures. `onRound` sees each round once it is over (to print it).
 */
export async function runRounds<S extends string, F>(options: {
  sides: readonly S[];
  rounds?: number;
  run: (side: S, round: number) => Promise<F>;
  onRound?: (round: Round<S, F>) => unknown;
}): Promise<Round<S, F>[]> {
  const count = options.rounds ?? roundsFromEnv();
  const rounds: Round<S, F>[] = [];
  for (let round = 1; round <= count; round++) {
    const order = orderOf(options.sides, round);
    const figures: Partial<Record<S, F>> = {};
    for (const side of order) figures[side] = await options.run(side, round);
    const done: Round<S, F> = { round, order, figures: figures as Record<S, F>, load_1m: os.loadavg()[0] ?? Number.NaN };
    rounds.push(done);
    await options.onRound?.(done);
  }
  return rounds;
}

export const percent = (ratio: number): string => `${(ratio * 100).toFixed(1)}%`;
export const times = (ratio: number): string => `${ratio.toFixed(2)}x`;

export interface Gate {
  /** What the ratio is, e.g. "the action path's share of the baseline's throughput". */
  name: string;
  /** One figure per round. */
  values: readonly number[];
  target: number;
  /** "min": the median must be >= target; "max": <= target (a time ratio); "below": < target (an absolute bound). */
  bound: "min" | "max" | "below";
  /**
   * "median" (the default): the median of the rounds must meet the target. "every": each round
   * must (a latency promised in every round, not in a typical one); the worst round is printed.
   */
  over?: "median" | "every";
  format?: (value: number) => string;
}

const meets = (g: Gate, value: number): boolean => (g.bound === "min" ? value >= g.target : g.bound === "max" ? value <= g.target : value < g.target);

/**
 * The verdict on the per-round figures: on their median, printing `<name>: median X (min A, max
 * B) over N rounds; target >= T: met|NOT met`, or (`over: "every"`) on every round, printing
 * `<name>: worst X (round R; median M, best B) over N rounds; target < T in every round: met|NOT
 * met (rounds missing it: ...)`. Sets process.exitCode to 1 when it is missed (never back to 0).
 * Answers whether it was met.
 */
export function gate(g: Gate): boolean {
  const format = g.format ?? percent;
  const s = spread(g.values);
  const sign = g.bound === "min" ? ">=" : g.bound === "max" ? "<=" : "<";
  let met: boolean;
  if (g.over === "every") {
    const worst = g.bound === "min" ? s.min : s.max;
    const best = g.bound === "min" ? s.max : s.min;
    const missed = g.values.flatMap((value, i) => (meets(g, value) ? [] : [i + 1]));
    met = missed.length === 0 && g.values.length > 0;
    process.stdout.write(
      `${g.name}: worst ${format(worst)} (round ${g.values.indexOf(worst) + 1}; median ${format(s.median)}, best ${format(best)}) over ${s.values.length} rounds; ` +
        `target ${sign} ${format(g.target)} in every round: ${met ? "met" : `NOT met (rounds missing it: ${missed.join(", ")})`}\n`,
    );
  } else {
    met = meets(g, s.median);
    process.stdout.write(
      `${g.name}: median ${format(s.median)} (min ${format(s.min)}, max ${format(s.max)}) over ${s.values.length} rounds; target ${sign} ${format(g.target)}: ${met ? "met" : "NOT met"}\n`,
    );
  }
  if (!met) process.exitCode = 1;
  return met;
}

/** Rows as an aligned table: the first column left-aligned, the others right-aligned. */
export function table(rows: readonly (readonly string[])[]): string {
  const columns = Math.max(...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

const RESULTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "results");

/** Where a benchmark writes its figures: BENCH_RESULTS_DIR (created if missing), default bench/results. */
export function resultsFile(name: string): string {
  const dir = process.env.BENCH_RESULTS_DIR ? path.resolve(process.env.BENCH_RESULTS_DIR) : RESULTS_DIR;
  mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}
