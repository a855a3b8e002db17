import { z } from "zod";
import { type JobRunContext, defineJob } from "../../../core/job-task.ts";
import { declareJob } from "../../../core/jobs.ts";
import { saveCsvExport } from "../../../exports/store.ts";
import { REPORTS, type ReportName, reportTable } from "../report-queries.ts";

/** A back-in-stock report as CSV in the exports store (POST /back_in_stock/reports/export). */
export const reportExportJob = declareJob({ name: "bis_report_export", payload: z.object({ report: z.enum(REPORTS), filters: z.record(z.string(), z.unknown()) }) });

/** The export job: runs the report and stores its CSV (src/exports/store.ts). */
async function runReportExport(ctx: JobRunContext<z.output<typeof reportExportJob.payload>>): Promise<Record<string, unknown>> {
  const { shopId, payload: { report, filters } } = ctx;
  const table = await reportTable(ctx.pool, shopId, report satisfies ReportName, filters);
  const stamp = ctx.job.created_at.toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-");
  const saved = await saveCsvExport(ctx.pool, {
    shopId,
    jobId: ctx.job.id,
    filename: `back-in-stock-${report.replace(/_/g, "-")}-${stamp}.csv`,
    columns: table.columns,
    rows: table.rows,
  });
  await ctx.progress(table.rows.length, table.rows.length);
  return { export_id: saved.id, download_path: saved.download_path, filename: saved.filename, content_type: saved.content_type, rows: saved.rows, bytes: saved.byte_size };
}

export const reportExportJobRun = defineJob({ ...reportExportJob, run: runReportExport });
