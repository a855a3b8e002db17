import type pg from "pg";
import { Gauge } from "prom-client";
import { registry } from "./registry.ts";
import { QUEUE_RELATIONS } from "../queue/relations.ts";

/** A scrape within this of the last query answers the same figures: scrapes cannot load the database. */
export const QUEUE_DEPTH_CACHE_MS = 5_000;

interface DepthRow {
  queue: string;
  task: string;
  state: string;
  n: number;
}

// One statement: graphile-worker's public jobs view by task and state, and the app's jobs table
// (its queued and running rows only: finished ones are history, kept JOB_RETENTION_DAYS).
const DEPTH_SQL = `
  select 'graphile_worker' as queue, task_identifier as task,
         case when locked_at is not null then 'locked'
              when attempts >= max_attempts then 'failed'
              when run_at > now() then 'scheduled'
              else 'ready' end as state,
         count(*)::int as n
  from ${QUEUE_RELATIONS.jobs} group by 1, 2, 3
  union all
  select 'app', kind, status, count(*)::int from jobs where status in ('queued', 'running') group by 1, 2, 3`;

let source: pg.Pool | undefined;
let cached: { at: number; rows: Promise<DepthRow[]> } | undefined;

new Gauge({
  name: "queue_jobs",
  help: "Jobs waiting or running: graphile-worker's by task and state (ready, scheduled, locked, failed), the app's jobs table by kind and status (queued, running)",
  labelNames: ["queue", "task", "state"] as const,
  registers: [registry],
  async collect() {
    if (!source) return;
    const pool = source;
    const now = performance.now();
    if (!cached || now - cached.at >= QUEUE_DEPTH_CACHE_MS) {
      cached = { at: now, rows: pool.query<DepthRow>(DEPTH_SQL).then((r) => r.rows) };
    }
    let rows: DepthRow[];
    try {
      rows = await cached.rows;
    } catch {
      // A failed query is not cached: the next scrape tries again; this one shows no depth.
      cached = undefined;
      this.reset();
      return;
    }
    this.reset();
    for (const row of rows) this.set({ queue: row.queue, task: row.task, state: row.state }, row.n);
  },
});

/** Queue depth is read through this pool from now on (the service's); the returned function stops it. */
export function collectQueueDepth(pool: pg.Pool): () => void {
  source = pool;
  cached = undefined;
  return () => {
    if (source === pool) {
      source = undefined;
      cached = undefined;
    }
  };
}
