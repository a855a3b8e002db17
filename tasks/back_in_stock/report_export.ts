import type { Task } from "graphile-worker";
import { runReportExport } from "../../src/actions/back_in_stock/reports.ts";
import { jobTask } from "../../src/core/job-task.ts";
import type { ServiceTaskDeps } from "../deps.ts";

/** Application job `bis_report_export`: a back-in-stock report as CSV in the exports store. */
export default function reportExport(deps: ServiceTaskDeps): Task {
  return jobTask(deps, runReportExport);
}
