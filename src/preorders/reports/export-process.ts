/**
 * The report export's own process (forked by export.ts): streams the report's CSV, written by
 * PostgreSQL's COPY, into the exports storage on connections of its own. It holds a piece of the
 * COPY and the chunk being filled, not rows; away from the worker's other jobs and under a small
 * heap cap, neither the worker nor this process grows with an export's size. It loads only pg
 * and pg-copy-streams.
 *
 * IPC from the parent: { type: "start", data: ExportProcessData }. To the parent:
 * { type: "progress", processed, total? }, then { type: "done", ... } or { type: "error", message }.
 * SIGTERM (the job aborted) ends it; the open transaction dies with the connection. So does the
 * end of the IPC channel: the worker that forked it is gone (killed), nobody would take its
 * answer, and the job runs again elsewhere.
 */
import pg from "pg";
import { ChunkedExportWriter } from "../../exports/chunks.ts";
import type { ReportQuery } from "./query.ts";
import { streamReportCsv } from "./stream.ts";

export interface ExportProcessData {
  connectionString: string;
  query: ReportQuery;
  shopId: string;
  jobId: string | null;
  filename: string;
  contentType: string;
}

export type ExportProcessMessage =
  | { type: "progress"; processed: number; total?: number }
  | { type: "done"; export_id: string; rows: number; bytes: number; peak_rss_mb: number }
  | { type: "error"; message: string };

function send(message: ExportProcessMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send || !process.connected) return resolve();
    process.send(message, undefined, undefined, () => resolve());
  });
}

async function run(data: ExportProcessData): Promise<void> {
  const pool = new pg.Pool({ connectionString: data.connectionString, max: 2 });
  pool.on("error", () => undefined);
  try {
    const writer = await ChunkedExportWriter.open(pool, { shopId: data.shopId, jobId: data.jobId, filename: data.filename, contentType: data.contentType });
    try {
      const streamed = await streamReportCsv(pool, data.query, (csv) => writer.write(csv), (processed, total) => send({ type: "progress", processed, ...(total === undefined ? {} : { total }) }));
      const saved = await writer.finish();
      await send({ type: "done", export_id: saved.id, rows: streamed.rows, bytes: saved.byte_size, peak_rss_mb: process.resourceUsage().maxRSS / 1024 });
    } catch (error) {
      await writer.abort();
      throw error;
    }
  } catch (error) {
    await send({ type: "error", message: error instanceof Error ? error.message : String(error) });
  } finally {
    await pool.end().catch(() => undefined);
    if (process.connected) process.disconnect();
  }
}

if (!process.send) throw new Error("export-process.ts runs as a forked child of the export job");
process.once("disconnect", () => process.exit(0));
process.once("message", (message: { type?: string; data?: ExportProcessData }) => {
  if (message.type === "start" && message.data) void run(message.data);
});
