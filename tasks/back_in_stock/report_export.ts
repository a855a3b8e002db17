import { reportExportTask, runReportExport } from "../../src/back_in_stock/reports/actions/reports.ts";
import { defineJobTask } from "../../src/core/job-task.ts";

/** Application job `bis_report_export`: a back-in-stock report as CSV in the exports store. */
export default defineJobTask({ name: reportExportTask.name, run: runReportExport });
