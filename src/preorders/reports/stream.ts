import { stringify } from "csv-stringify";
import type pg from "pg";
import type { ReportQuery } from "./query.ts";
import { csvText } from "../../exports/csv-text.ts";

/**
 * Streaming a report into CSV: few imports, as it runs in the export's worker thread
 * (export-thread.ts), whose heap should hold little besides the rows in flight.
 */

/** Rows per FETCH from the server-side cursor: the most the export holds at once. */
export const FETCH_ROWS = 10_000;
/** Progress is reported at most this often. */
const PROGRESS_EVERY_MS = 500;

export interface ExportStreamResult {
  rows: number;
  bytes: number;
}

/**
 * Streams a report's rows from a server-side cursor (DECLARE ... CURSOR, FETCH in batches, the
 * next batch already on its way while this one is turned into CSV by csv-stringify) into the
 * writer. The count for progress and the rows come from one REPEATABLE READ snapshot.
 */
export async function streamReportCsv(
  pool: pg.Pool,
  query: ReportQuery,
  write: (csv: Buffer) => Promise<void>,
  progress: (processed: number, total?: number) => Promise<void>,
  signal?: AbortSignal,
  fetchRows = FETCH_ROWS,
): Promise<ExportStreamResult> {
  const client = await pool.connect();
  let rows = 0;
  let bytes = 0;
  try {
    await client.query("begin isolation level repeatable read read only");
    // The whole result is wanted: plan for all of it, not for the first tenth (the cursor default).
    await client.query("set local cursor_tuple_fraction = 1.0");
    // JIT compiling costs more here than it saves on a plan that runs once, row batch by batch.
    await client.query("set local jit = off");
    const { rows: counted } = await client.query<{ n: number }>(query.countSql, query.values);
    const total = counted[0]?.n ?? 0;
    await progress(0, total);
    await client.query(`declare report_cursor no scroll cursor for ${query.sql}`, query.values);
    const fetch = () => client.query<unknown[]>({ text: `fetch ${fetchRows} from report_cursor`, rowMode: "array" }).then((r) => r.rows);
    // One stringifier for the whole file (its stream API: several times faster than a sync call
    // per batch). Fed synchronously, it hands each record's CSV to the data listener at once.
    const stringifier = stringify({ cast: { string: csvText } });
    let pieces: Buffer[] = [];
    let pieceBytes = 0;
    stringifier.on("data", (piece: Buffer) => {
      pieces.push(piece);
      pieceBytes += piece.length;
    });
    const drain = async () => {
      const csv = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces, pieceBytes);
      bytes += pieceBytes;
      pieces = [];
      pieceBytes = 0;
      await write(csv);
    };
    stringifier.write(query.columns);
    await drain();
    let lastProgress = Date.now();
    let next = fetch();
    next.catch(() => undefined); // awaited below; a failure must not count as unhandled meanwhile
    for (;;) {
      const batch = await next;
      if (batch.length === 0) break;
      signal?.throwIfAborted();
      next = fetch();
      next.catch(() => undefined);
      for (const row of batch) stringifier.write(row);
      await drain();
      rows += batch.length;
      if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
        lastProgress = Date.now();
        await progress(rows);
      }
    }
    stringifier.end();
    await client.query("commit");
  } catch (error) {
    await client.query("rollback").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  return { rows, bytes };
}

