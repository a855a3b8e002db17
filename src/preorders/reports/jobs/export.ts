import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { type JobRunContext, defineJob } from "../../../core/job-task.ts";
import { declareJob } from "../../../core/jobs.ts";
import { CSV_CONTENT_TYPE, exportDownloadPath } from "../../../exports/store.ts";
import type { ExportProcessData, ExportProcessMessage } from "../export-process.ts";
import { REPORTS, type ReportQuery, reportBody, reportQuery } from "../query.ts";
import { READ_REPORTS, readExportQuery, readExportView } from "../views.ts";

/**
 * A preorder report's CSV into the exports storage (the reports' export actions): by_offer's or
 * balance_collection's for a report body, or a JSON report read's (views.ts) for the read's
 * filters as a report body and the rest of the read's query (`view`).
 */
export const reportExportJob = declareJob({
  name: "preorders_report_export",
  payload: z.discriminatedUnion("report", [
    z.object({ report: z.enum(REPORTS), body: reportBody }),
    z.object({ report: z.enum(READ_REPORTS), body: reportBody, view: readExportView }),
  ]),
});

type ExportPayload = z.output<typeof reportExportJob.payload>;

function queryOf(payload: ExportPayload, shopId: string): ReportQuery {
  return "view" in payload ? readExportQuery(payload.report, payload.body, payload.view, shopId) : reportQuery(payload.report, payload.body, shopId);
}

function filenameFor(report: ExportPayload["report"], at: Date): string {
  return `preorders-${report.replaceAll("_", "-")}-${at.toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-")}.csv`;
}

/**
 * V8 flags of the export's process: a capped old generation, so the buffers of COPY's output
 * already stored are collected as the export goes instead of accumulating (it holds no rows: the
 * CSV comes from PostgreSQL, src/exports/copy.ts).
 */
const EXPORT_PROCESS_FLAGS = ["--max-old-space-size=64", "--max-semi-space-size=16"];

/**
 * The export job: the report's CSV into the exports storage, streamed by a child process of its
 * own (export-process.ts) with a capped heap; progress is relayed to the job, an abort ends the
 * child. The result names the download path.
 */
export async function runReportExport(ctx: JobRunContext<ExportPayload>): Promise<Record<string, unknown>> {
  const { shopId, payload } = ctx;
  const { report } = payload;
  const filename = filenameFor(report, ctx.job.created_at);
  const connectionString = ctx.pool.options.connectionString;
  if (!connectionString) throw new Error("report exports need a pool configured with a connection string");
  const data: ExportProcessData = { connectionString, query: queryOf(payload, shopId), shopId, jobId: ctx.job.id, filename, contentType: CSV_CONTENT_TYPE };
  const child = fork(fileURLToPath(new URL("../export-process.ts", import.meta.url)), [], { execArgv: EXPORT_PROCESS_FLAGS, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const onAbort = () => child.kill("SIGTERM");
  ctx.signal?.addEventListener("abort", onAbort, { once: true });
  let progress = Promise.resolve();
  try {
    const done = await new Promise<Extract<ExportProcessMessage, { type: "done" }>>((resolve, reject) => {
      child.on("message", (message: ExportProcessMessage) => {
        if (message.type === "progress") progress = progress.then(() => ctx.progress(message.processed, message.total)).catch(() => undefined);
        else if (message.type === "done") resolve(message);
        else reject(new Error(message.message));
      });
      child.once("error", reject);
      child.once("exit", (code, signal) => reject(new Error(`the export process ended (${signal ?? String(code)}) before finishing`)));
      child.send({ type: "start", data });
    });
    await progress;
    return {
      report,
      export_id: done.export_id,
      download_path: exportDownloadPath(done.export_id),
      filename,
      content_type: CSV_CONTENT_TYPE,
      rows: done.rows,
      bytes: done.bytes,
      export_process_peak_rss_mb: Math.round(done.peak_rss_mb),
    };
  } finally {
    ctx.signal?.removeEventListener("abort", onAbort);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    // A failed run's progress writes land before its failure is recorded, not after it.
    await progress;
  }
}

export const reportExportJobRun = defineJob({ ...reportExportJob, run: runReportExport });
