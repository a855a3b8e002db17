import { type AnyAction, defineAction } from "../../../core/action.ts";
import { jobHandleOutput } from "../../../core/outputs.ts";
import { enqueueJob } from "../../../core/jobs.ts";
import { PAGING_RULE } from "../../../core/paging.ts";
import { PERIOD_RULE } from "../../../core/period.ts";
import { reportExportJob } from "../jobs/export.ts";
import { REPORT_BODY_HELP, type ReportName, reportBody } from "../query.ts";
import { READ_REPORTS, type ReadExportView, type ReadReport, readExportView } from "../views.ts";
import { BY_DATE_FIELDS, READ_PAGING, checkMarket, readInput, reportFilters } from "./read-input.ts";

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


// ---- the JSON report reads as CSV (decision 0245) ----

const READ_BODY_HELP = `Body (all optional), the read's query parameters as JSON, with the same rules and 422 messages: from, to (${PERIOD_RULE}; on the order's creation time), offer_id and offer_ids (an array, up to 100, combined), product_id and variant_id (numbers or gids), market_id (one of the shop's markets), currency (ISO 4217). Amounts are decimal strings in each currency, two decimals, as the read answers them; an empty cell is the read's null.`;

const READ_PAGING_HELP = `Paging, as the read takes it (page and per_page JSON integers, cursor the read's next_cursor): without any, the file holds every row; with one, the rows of that page of the read. ${PAGING_RULE}.`;

/** What every read's export says first: what it exports and where the file is found. */
const exportLead = (label: string, report: ReadReport): string =>
  `Exports the ${label} report (GET /preorders/reports/${report}) as CSV, asynchronously: a job handle; the finished job's result names the download (result.download_path, GET /exports/{export_id}, text/csv, this shop only).`;

const READ_EXPORTS: Record<ReadReport, { description: string; aliases: string[] }> = {
  summary: {
    description:
      `${exportLead("summary", "summary")} Key/value rows with the columns section, key, currency, value: section period (keys from and to, the period asked for, empty when not given), section currencies (one row per currency and metric: orders, units, gross_sales, deposits_paid, balance_due, balance_collected, balance_outstanding), section orders_by_status (one row per order status, cancelled and refunded included, 0 when none); the values those of the read for the same filters.`,
    aliases: ["export the preorder summary as csv", "download preorder totals for a period"],
  },
  revenue: {
    description:
      `${exportLead("revenue", "revenue")} One row per offer and currency, the read's rows in its order, with its fields as columns: offer_id (empty: lines on a selling plan no offer has yet), offer_name, currency, orders, units, gross_sales, deposits_paid, balance_due, balance_collected, balance_outstanding.`,
    aliases: ["export preorder revenue by offer as csv", "download how much each preorder offer sold"],
  },
  by_date: {
    description:
      `${exportLead("by-date", "by_date")} One row per period and currency (granularity day, the default, week: ISO weeks from Monday, or month; UTC), oldest first, with the read's fields as columns: period_start, currency, orders, units, gross_sales, deposits_paid, balance_due, balance_collected, balance_outstanding.`,
    aliases: ["export preorder sales by day as csv", "download preorder sales per week or month"],
  },
  by_variant: {
    description:
      `${exportLead("by-variant", "by_variant")} One row per variant and currency, ordered by variant id, with the read's fields as columns: variant_id, product_id, title, product_title (from the catalog mirror, empty once the platform deleted it), currency, orders, units, gross_sales, deposits_paid, balance_due, balance_collected, balance_outstanding.`,
    aliases: ["export preorder sales by variant as csv", "download which variants sold the most preorders"],
  },
  customers: {
    description:
      `${exportLead("customers", "customers")} One row per e-mail and currency, ordered by e-mail, with the read's fields as columns: email (empty: orders without one), currency, first_order_at, last_order_at, orders, units, gross_sales, deposits_paid, balance_due, balance_collected, balance_outstanding.`,
    aliases: ["export the preorder customers report as csv", "download who placed the most preorders"],
  },
};

/** What a read's export body carries beside its filters (validated already), as the job takes it. */
function viewOf(input: Record<string, unknown>): ReadExportView {
  const { granularity, page, per_page: perPage, cursor } = input;
  return readExportView.parse({ granularity, page, per_page: perPage, after: cursor });
}

function readExportAction(report: ReadReport): AnyAction {
  const extra = report === "by_date" ? BY_DATE_FIELDS : {};
  const paging = report === "summary" ? {} : READ_PAGING.body;
  return defineAction({
    name: `preorders.reports.${report}.export`,
    method: "POST",
    path: `/preorders/reports/${report}/export`,
    description: `${READ_EXPORTS[report].description} ${READ_BODY_HELP}${report === "summary" ? "" : ` ${READ_PAGING_HELP}`}`,
    aliases: READ_EXPORTS[report].aliases,
    notes: [
      `The body is GET /preorders/reports/${report}'s query as JSON: a body the read refuses is refused here with the same 422, and the CSV's values are those the read answers for it.`,
      "A text cell that starts like a spreadsheet formula (=, +, -, @) gets a leading ' (as in every export); numbers, dates and ids are written as the read answers them.",
      "Each request is a new job (an export is not deduplicated); the download is kept for the exports' retention.",
    ],
    output: jobHandleOutput,
    kind: "write",
    async: true,
    input: readInput("body", extra, paging),
    async handler(ctx, { input }) {
      const body = await reportFilters(ctx, input);
      return enqueueJob(ctx.db, reportExportJob, { report, body, view: viewOf(input) }, { shopId: ctx.shopId, maxAttempts: 3 });
    },
  });
}

/** The CSV exports of the JSON report reads, in the reads' order. */
export const REPORT_READ_EXPORT_ACTIONS: readonly AnyAction[] = READ_REPORTS.map(readExportAction);
