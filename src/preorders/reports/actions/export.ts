import { type AnyAction, defineAction } from "../../../core/action.ts";
import type { Db } from "../../../core/db.ts";
import { invalidField } from "../../../core/errors.ts";
import { jobHandleOutput } from "../../../core/outputs.ts";
import { enqueueJob } from "../../../core/jobs.ts";
import { reportExportJob } from "../jobs/export.ts";
import { platformGid } from "../../../core/params.ts";
import { REPORT_BODY_HELP, type ReportName, reportBody } from "../query.ts";

const DESCRIPTIONS: Record<ReportName, string> = {
  by_offer:
    "Exports the by-offer report as CSV, asynchronously: a job handle; the finished job's result names the download (result.download_path, GET /exports/{export_id}, text/csv, this shop only). With granularity none, one row per preorder line item (offer id and name, selling plan, order, status, customer, product, variant, currency and the chosen metrics, the order's amounts apportioned to the line by its share of the total); with day, week or month, one row per period, offer and currency, summing the orders neither cancelled nor refunded (granularity none lists those too, with their status and zero units and amounts, so its rows add up to the same totals as the JSON report reads). Lines on a selling plan no offer has (yet) have an empty offer_id.",
  balance_collection:
    "Exports the balance collection report as CSV, asynchronously: a job handle; the finished job's result names the download (result.download_path, GET /exports/{export_id}, text/csv, this shop only). It covers the orders that had a balance left after their deposit: with granularity none one row per order (status, customer, currency, when collection was requested, the chosen metrics; zero for an order cancelled or refunded), with day, week or month one row per period and currency, summing the orders neither cancelled nor refunded.",
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
      return enqueueJob(ctx.db, reportExportJob, { report, body: input }, { shopId: ctx.shopId, maxAttempts: 3 });
    },
  });
}

export const exportByOffer = exportAction("by_offer");
export const exportBalanceCollection = exportAction("balance_collection");

