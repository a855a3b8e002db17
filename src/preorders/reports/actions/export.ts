import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { type AnyAction, defineAction } from "../../../core/action.ts";
import type { Db } from "../../../core/db.ts";
import { invalidField } from "../../../core/errors.ts";
import { jobHandleOutput } from "../../../core/outputs.ts";
import type { JobContext } from "../../../core/job-task.ts";
import { declareJobTask, enqueueJob } from "../../../core/jobs.ts";
import { platformGid } from "../../../core/params.ts";
import type { ExportProcessData, ExportProcessMessage } from "../export-process.ts";
import { CSV_CONTENT_TYPE, exportDownloadPath } from "../../../exports/store.ts";
import { REPORT_BODY_HELP, REPORTS, type ReportBody, type ReportName, reportBody, reportQuery } from "../query.ts";

export const reportExportTask = declareJobTask({ name: "preorders_report_export" });

const DESCRIPTIONS: Record<ReportName, string> = {
  by_offer:
    "Exports the by-offer report as CSV, asynchronously: a job handle; the finished job's result names the download (result.download_path, GET /exports/{export_id}, text/csv, this shop only). With granularity none, one row per preorder line item (offer id and name, selling plan, order, status, customer, product, variant, currency and the chosen metrics, the order's amounts apportioned to the line by its share of the total); with day, week or month, one row per period, offer and currency, summing the orders neither cancelled nor refunded (granularity none lists those too, with their status). Lines on a selling plan no offer has (yet) have an empty offer_id.",
  balance_collection:
    "Exports the balance collection report as CSV, asynchronously: a job handle; the finished job's result names the download (result.download_path, GET /exports/{export_id}, text/csv, this shop only). It covers the orders that had a balance left after their deposit: with granularity none one row per order (status, customer, currency, when collection was requested, the chosen metrics), with day, week or month one row per period and currency, summing the orders neither cancelled nor refunded.",
};

const ALIASES: Record<ReportName, string[]> = {
  by_offer: ["export the preorder report by offer as csv", "download preorder sales by offer"],
  balance_collection: ["export the balance collection report as csv", "download the preorder balances report"],
};

export async function checkMarket(db: Db, shopId: string, marketId: string): Promise<void> {
  const { rowCount } = await db.query("select 1 from markets where shop_id = $1 and id = $2", [shopId, platformGid("Market", marketId)]);
  if ((rowCount ?? 0) === 0) throw invalidField("market_id", "must be one of the shop's markets");
}

function exportAction(report: ReportName): AnyAction {
  return defineAction({
    name: `preorders.reports.${report}.export`,
    method: "POST",
    path: `/preorders/reports/${report}/export`,
    description: `${DESCRIPTIONS[report]} ${REPORT_BODY_HELP}`,
    aliases: ALIASES[report],
    notes: [
      "The body's period and filters are the same as the JSON report reads take (GET /preorders/reports/summary, revenue, by_date, by_variant, customers), and their numbers agree.",
      "Each request is a new job (an export is not deduplicated); the download is kept for the exports' retention.",
    ],
    output: jobHandleOutput,
    kind: "write",
    async: true,
    input: reportBody,
    async handler(ctx, { input }) {
      if (input.market_id) await checkMarket(ctx.db, ctx.shopId, input.market_id);
      return enqueueJob(ctx.db, { shopId: ctx.shopId, task: reportExportTask, payload: { report, body: input }, maxAttempts: 3 });
    },
  });
}

export const exportByOffer = exportAction("by_offer");
export const exportBalanceCollection = exportAction("balance_collection");

const jobPayload = z.object({ report: z.enum(REPORTS), body: z.unknown() });

function filenameFor(report: ReportName, at: Date): string {
  return `preorders-${report.replace("_", "-")}-${at.toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-")}.csv`;
}

/**
 * V8 flags of the export's process: a capped old generation, so the strings of rows already
 * written are collected as the export goes instead of accumulating.
 */
const EXPORT_PROCESS_FLAGS = ["--max-old-space-size=64", "--max-semi-space-size=16"];

/**
 * The export job: the report's CSV into the exports storage, streamed by a child process of its
 * own (export-process.ts) with a capped heap; progress is relayed to the job, an abort ends the
 * child. The result names the download path.
 */
export async function runReportExport(ctx: JobContext): Promise<Record<string, unknown>> {
  const { report, body } = jobPayload.parse(ctx.job.payload);
  const shopId = ctx.job.shop_id;
  if (!shopId) throw new Error("report export job without a shop");
  const parsed: ReportBody = reportBody.parse(body);
  const filename = filenameFor(report, ctx.job.created_at);
  const connectionString = ctx.pool.options.connectionString;
  if (!connectionString) throw new Error("report exports need a pool configured with a connection string");
  const data: ExportProcessData = { connectionString, query: reportQuery(report, parsed, shopId), shopId, jobId: ctx.job.id, filename, contentType: CSV_CONTENT_TYPE };
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
