import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { stringify } from "csv-stringify";
import type pg from "pg";
import { V2_BASE_PATH } from "../core/manifest.ts";
import { isUuid } from "../core/params.ts";
import { ChunkedExportWriter } from "./chunks.ts";
import type { ExportRecord } from "./records.ts";
import { csvText } from "./csv-text.ts";

/**
 * Export files of any area, stored in PostgreSQL (`exports`) so every web process can serve
 * them through `GET /exports/{export_id}`. An export belongs to one shop and, usually, to the
 * job that produced it; the jobs retention prune removes it with its job.
 */

export const CSV_CONTENT_TYPE = "text/csv; charset=utf-8";

/** An export as stored, with the path that downloads it. */
interface ExportInfo extends ExportRecord {
  /** Relative to the host: `/api/v2/external/exports/{id}`. */
  download_path: string;
}

/** The v2 path that downloads an export (what an export job puts in its result). */
export function exportDownloadPath(exportId: string): string {
  return `${V2_BASE_PATH}/exports/${exportId}`;
}

function info(row: ExportRecord): ExportInfo {
  return { ...row, download_path: exportDownloadPath(row.id) };
}

interface CsvExportOptions {
  shopId: string;
  jobId?: string | null;
  filename: string;
  /** Header names, in order; each row is read by these keys. */
  columns: readonly string[];
  rows: Iterable<Record<string, unknown>> | AsyncIterable<Record<string, unknown>>;
}

function csvCell(value: unknown): string | number | boolean | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "string") return csvText(value);
  if (typeof value === "number" || typeof value === "boolean") return value;
  return csvText(JSON.stringify(value));
}

/**
 * Writes rows as CSV (csv-stringify's stream: a header line, RFC 4180 quoting) into the chunked
 * export store (chunks.ts), as every CSV export is stored: the file is never one string in
 * memory, and it appears, complete, when the last chunk commits.
 */
export async function saveCsvExport(pool: pg.Pool, options: CsvExportOptions): Promise<ExportInfo & { rows: number }> {
  const writer = await ChunkedExportWriter.open(pool, {
    shopId: options.shopId,
    jobId: options.jobId ?? null,
    filename: options.filename,
    contentType: CSV_CONTENT_TYPE,
  });
  let rows = 0;
  try {
    const { columns } = options;
    await pipeline(
      Readable.from(options.rows),
      async function* (source: AsyncIterable<Record<string, unknown>>) {
        for await (const row of source) {
          rows++;
          yield columns.map((column) => csvCell(row[column]));
        }
      },
      stringify({ header: true, columns: [...columns], cast: { boolean: (v) => (v ? "true" : "false") } }),
      async (csv: AsyncIterable<Buffer>) => {
        for await (const piece of csv) await writer.write(piece);
      },
    );
  } catch (error) {
    await writer.abort();
    throw error;
  }
  return { ...info(await writer.finish()), rows };
}

/** A stored file being downloaded: its record, and its bytes as a stream read a chunk at a time. */
interface ExportDownload extends ExportInfo {
  stream: Readable;
}

/**
 * Opens a download, or undefined when the id is unknown, malformed or of another shop. The bytes
 * are read one stored chunk (CHUNK_BYTES) per query as the client takes them, so a download holds
 * one chunk in memory, not the file. A file removed while it is read (the retention prune) ends
 * the stream with an error rather than a short file passed off as whole.
 */
export async function openExport(pool: pg.Pool, shopId: string, exportId: string): Promise<ExportDownload | undefined> {
  if (!isUuid(exportId)) return undefined;
  const { rows } = await pool.query<ExportRecord & { inline: Buffer }>(
    `select e.id, e.shop_id, e.job_id, e.filename, e.content_type, e.created_at, e.bytes as inline,
            (octet_length(e.bytes) + coalesce((select sum(octet_length(c.bytes)) from export_chunks c where c.export_id = e.id), 0))::float8 as byte_size
     from exports e where e.id = $1 and e.shop_id = $2`,
    [exportId, shopId],
  );
  const row = rows[0];
  if (!row) return undefined;
  const { inline, ...record } = row;
  const bytes = exportBytes(pool, record.id, inline, record.byte_size);
  // The first piece is read now: a file pruned since the query above is not found, rather than a
  // response that has already promised an attachment and then fails.
  let first: IteratorResult<Buffer>;
  try {
    first = await bytes.next();
  } catch {
    return undefined;
  }
  async function* all(): AsyncGenerator<Buffer> {
    if (first.done !== true) yield first.value;
    yield* bytes;
  }
  return { ...info(record), stream: Readable.from(all(), { objectMode: false }) };
}

async function* exportBytes(pool: pg.Pool, exportId: string, inline: Buffer, size: number): AsyncGenerator<Buffer> {
  let sent = 0;
  if (inline.length > 0) {
    sent += inline.length;
    yield inline;
  }
  for (let next = 0; ; ) {
    const { rows } = await pool.query<{ seq: number; bytes: Buffer }>(
      "select seq, bytes from export_chunks where export_id = $1 and seq >= $2 order by seq limit 1",
      [exportId, next],
    );
    const chunk = rows[0];
    if (!chunk) break;
    sent += chunk.bytes.length;
    yield chunk.bytes;
    next = chunk.seq + 1;
  }
  if (sent !== size) throw new Error(`export ${exportId} changed while it was read (${sent} of ${size} bytes)`);
}
