import type pg from "pg";

/**
 * The statements a measured run spent the database's time on, from pg_stat_statements (bench:alerts
 * with BENCH_STATEMENTS=1). It needs the server to preload the library
 * (shared_preload_libraries = 'pg_stat_statements', and pg_stat_statements.track = 'all' to see the
 * statements inside functions such as the mark's), which a bench cannot do itself: without it,
 * the bench says so and runs on.
 */

export interface StatementCost {
  calls: number;
  total_ms: number;
  ms_per_call: number;
  rows: number;
  buffer_hits: number;
  /** A statement run by another (a function's body, a foreign key's check): its time is inside its caller's too. */
  nested: boolean;
  query: string;
}

/** Whether pg_stat_statements answers in this database (the extension created if it can be); else why not. */
export async function enableStatements(pool: pg.Pool): Promise<true | string> {
  try {
    await pool.query("create extension if not exists pg_stat_statements");
    await pool.query("select pg_stat_statements_reset()");
    return true;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export async function resetStatements(pool: pg.Pool): Promise<void> {
  await pool.query("select pg_stat_statements_reset()");
}

/** This database's `limit` statements with the most execution time since the last reset. */
export async function topStatements(pool: pg.Pool, limit = 12): Promise<StatementCost[]> {
  const { rows } = await pool.query<{ calls: string; total_ms: number; rows: string; hits: string; toplevel: boolean; query: string }>(
    `select calls, total_exec_time as total_ms, rows, shared_blks_hit as hits, toplevel, query from pg_stat_statements
     where dbid = (select oid from pg_database where datname = current_database()) and query not like '%pg_stat_statements%'
     order by total_exec_time desc limit $1`,
    [limit],
  );
  return rows.map((r) => ({
    calls: Number(r.calls),
    total_ms: r.total_ms,
    ms_per_call: r.total_ms / Math.max(1, Number(r.calls)),
    rows: Number(r.rows),
    buffer_hits: Number(r.hits),
    nested: !r.toplevel,
    query: r.query.replace(/\s+/g, " ").trim(),
  }));
}

/** One line per statement: calls, time in all and per call, rows and buffer hits per alert, the statement's start. */
export function describeStatements(statements: readonly StatementCost[], alerts: number): string[] {
  return statements.map(
    (s) =>
      `  ${String(s.calls).padStart(7)} calls ${s.total_ms.toFixed(0).padStart(7)} ms ${s.ms_per_call.toFixed(3).padStart(8)} ms/call ` +
      `${(s.rows / alerts).toFixed(2).padStart(6)} rows/alert ${(s.buffer_hits / alerts).toFixed(1).padStart(6)} hits/alert${s.nested ? " (nested)" : ""}  ${s.query.slice(0, 110)}`,
  );
}
