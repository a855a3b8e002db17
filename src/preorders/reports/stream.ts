import type pg from "pg";
import { copyCsv, csvSafeSelect, inlineParameters } from "../../exports/copy.ts";
import type { ReportQuery } from "./query.ts";

/**
 * Streaming a report into CSV: PostgreSQL writes it (COPY, exports/copy.ts); this process only
 * moves its bytes into the export's chunks. Few imports, as it runs in the export's own process
 * (export-process.ts).
 */

/** Progress is reported at most this often. */
const PROGRESS_EVERY_MS = 500;

interface ExportStreamResult {
  rows: number;
  bytes: number;
}

/** The report as the CSV export's COPY runs it: parameters written in, every text cell made spreadsheet-safe. */
function reportCopySelect(query: ReportQuery): string {
  return csvSafeSelect(inlineParameters(query.sql, query.values), query.columns, query.formatted);
}

/**
 * Streams a report's CSV (header line, then its rows in the report's order) from
 * `COPY ... TO STDOUT (FORMAT csv, HEADER)` into the writer. The count for progress and the rows
 * come from one REPEATABLE READ snapshot; progress is the rows COPY has sent so far.
 */
export async function streamReportCsv(
  pool: pg.Pool,
  query: ReportQuery,
  write: (csv: Buffer) => Promise<void>,
  progress: (processed: number, total?: number) => Promise<void>,
  signal?: AbortSignal,
): Promise<ExportStreamResult> {
  const select = reportCopySelect(query);
  const client = await pool.connect();
  let result: ExportStreamResult;
  try {
    await client.query("begin isolation level repeatable read read only");
    // JIT compiling costs more here than it saves on a plan that runs once.
    await client.query("set local jit = off");
    const { rows: counted } = await client.query<{ n: number }>(query.count.sql, query.count.values);
    const total = counted[0]?.n ?? 0;
    await progress(0, total);
    let lastProgress = Date.now();
    result = await copyCsv(client, select, write, async (rows) => {
      signal?.throwIfAborted();
      if (Date.now() - lastProgress < PROGRESS_EVERY_MS) return;
      lastProgress = Date.now();
      await progress(rows);
    });
    await client.query("commit");
  } catch (error) {
    // A COPY given up half way leaves the connection mid-protocol: it is closed, not reused (the
    // read-only transaction ends with it).
    client.release(error instanceof Error ? error : true);
    throw error;
  }
  client.release();
  return result;
}
