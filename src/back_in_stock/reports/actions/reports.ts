import { z } from "zod";
import { type AnyAction, defineAction } from "../../../core/action.ts";
import { reportCatalogAction } from "../../../core/report-catalog.ts";
import { invalidField } from "../../../core/errors.ts";
import { PERIOD_RULE } from "../../../core/period.ts";
import { enqueueJob } from "../../../core/jobs.ts";
import { reportExportJob } from "../jobs/export.ts";
import { jobHandleOutput, timestampOutput } from "../../../core/outputs.ts";
import {
  GRANULARITIES,
  REPORTS,
  REPORT_INPUTS,
  type ReportName,
  conversionsReport,
  notificationsReport,
  productsInDemandReport,
  signupsReport,
  summaryReport,
} from "../report-queries.ts";

const FILTERS = `Filters, all optional: from and to (${PERIOD_RULE}); variant_id and product_id (numeric id or gid); channel (email, sms).`;
const SERIES =
  "granularity (day, week from Monday, or month; default day) sets the periods; every period from `from` (else the first event) up to `to` (else now) has a row, zeros included, period being its first day (YYYY-MM-DD).";

const count = z.int().min(0);
const money = z.number().describe("an amount in the shop's currency, 2 decimals");
const ratio = z.number().min(0).max(1).describe("a ratio, 4 decimals; 0 when the whole is 0");
const bounds = {
  from: timestampOutput.nullable().describe("the instant the period starts at (inclusive); null without from"),
  to: timestampOutput.nullable().describe("the instant the period ends before (exclusive); null without to"),
};
const period = z.iso.date().describe("the period's first day, YYYY-MM-DD (UTC)");

/** The answer of a time-series report: its periods, every one from the start to the end, zeros included. */
function seriesOutput<S extends z.ZodRawShape>(row: S) {
  return z.strictObject({ granularity: z.enum(GRANULARITIES), ...bounds, periods: z.array(z.strictObject({ period, ...row })) });
}

const EXPORT_NOTE = "Any report can also be exported as CSV: POST /back_in_stock/reports/export.";
const REPORT_NOTES = ["Periods are UTC; weeks start on Monday.", EXPORT_NOTE];

export const summaryReportAction = defineAction({
  name: "back_in_stock.reports.summary",
  aliases: ["back in stock performance summary", "how much revenue did back in stock alerts recover", "read the back in stock conversion rate"],
  notes: ["The cohort is the signups created in the period; their counts say where they stand now, so a past period's figures can still change.", EXPORT_NOTE],
  output: z.strictObject({
    ...bounds,
    signups: count,
    pending: count.describe("still waiting"),
    notified: count.describe("alerted at least once"),
    conversions: count,
    conversion_rate: ratio.describe("conversions / notified, 4 decimals; 0 when none were notified"),
    unsubscribed: count,
    recovered_revenue: money.describe("line totals of the signups' variants in the converting orders, each order and variant once; cancelled orders count nothing"),
  }),
  method: "GET",
  path: "/back_in_stock/reports/summary",
  description: `Back-in-stock summary of the signups created in the period (a cohort), by where they stand now: signups, pending (still waiting), notified (alerted at least once), conversions (converted by an order), conversion_rate (conversions / notified, 0 when none were notified; 4 decimals), unsubscribed, and recovered_revenue: the sum of price x quantity of the signup's variant's lines in each converting order (platform order converted_order_id; each order and variant counted once even if several signups converted on it; cancelled orders count nothing), in the shop's currency. ${FILTERS}`,
  kind: "read",
  input: REPORT_INPUTS.summary,
  async handler(ctx, { input }) {
    return { from: input.from?.toISOString() ?? null, to: input.to?.toISOString() ?? null, ...(await summaryReport(ctx.db, ctx.shopId, input)) };
  },
});

export const signupsReportAction = defineAction({
  name: "back_in_stock.reports.signups",
  aliases: ["back in stock signups per day", "chart back in stock signups over time"],
  notes: REPORT_NOTES,
  output: seriesOutput({ signups: count, email: count, sms: count, waiting: count, notified: count, converted: count, unsubscribed: count }),
  method: "GET",
  path: "/back_in_stock/reports/signups",
  description: `Signups created per period: { granularity, from, to, periods: [{ period, signups, email, sms, waiting, notified, converted, unsubscribed }] } (the last four: where that period's signups stand now). ${FILTERS} ${SERIES}`,
  kind: "read",
  input: REPORT_INPUTS.signups,
  async handler(ctx, { input }) {
    const table = await signupsReport(ctx.db, ctx.shopId, input);
    return { granularity: input.granularity, from: input.from?.toISOString() ?? null, to: input.to?.toISOString() ?? null, periods: table.rows };
  },
});

export const notificationsReportAction = defineAction({
  name: "back_in_stock.reports.notifications",
  aliases: ["back in stock messages sent per day", "chart back in stock alerts sent failed and blocked"],
  notes: REPORT_NOTES,
  output: seriesOutput({ sent: count, failed: count, blocked: count, initial_sent: count, reminder_sent: count, signup_thank_you_sent: count }),
  method: "GET",
  path: "/back_in_stock/reports/notifications",
  description: `Messages logged per period: { granularity, from, to, periods: [{ period, sent, failed, blocked, initial_sent, reminder_sent, signup_thank_you_sent }] }. ${FILTERS} ${SERIES}`,
  kind: "read",
  input: REPORT_INPUTS.notifications,
  async handler(ctx, { input }) {
    const table = await notificationsReport(ctx.db, ctx.shopId, input);
    return { granularity: input.granularity, from: input.from?.toISOString() ?? null, to: input.to?.toISOString() ?? null, periods: table.rows };
  },
});

export const conversionsReportAction = defineAction({
  name: "back_in_stock.reports.conversions",
  aliases: ["back in stock conversions per period", "chart recovered revenue from back in stock alerts"],
  notes: [...REPORT_NOTES, "The orders behind these figures are listed by GET /back_in_stock/orders."],
  output: seriesOutput({ notified: count, conversions: count, conversion_rate: ratio, recovered_revenue: money }),
  method: "GET",
  path: "/back_in_stock/reports/conversions",
  description: `Conversions per period: { granularity, from, to, periods: [{ period, notified, conversions, conversion_rate, recovered_revenue }] }: notified counts signups alerted in the period, conversions signups converted in it, conversion_rate is their ratio, recovered_revenue the converting orders' line totals for the signups' variants (each order and variant once, in the period of its first conversion; cancelled orders excluded). ${FILTERS} ${SERIES}`,
  kind: "read",
  input: REPORT_INPUTS.conversions,
  async handler(ctx, { input }) {
    const table = await conversionsReport(ctx.db, ctx.shopId, input);
    return { granularity: input.granularity, from: input.from?.toISOString() ?? null, to: input.to?.toISOString() ?? null, periods: table.rows };
  },
});

export const productsInDemandReportAction = defineAction({
  name: "back_in_stock.reports.products_in_demand",
  aliases: ["which variants are customers waiting for most", "back in stock demand per variant"],
  notes: ["GET /back_in_stock/products gives the same demand per product, paged, over every signup.", EXPORT_NOTE],
  output: z.strictObject({
    ...bounds,
    variants: z.array(
      z.strictObject({
        variant_id: z.string(),
        product_id: z.string().nullable().describe("null when the variant is not in the catalog mirror"),
        product_title: z.string().nullable(),
        variant_title: z.string().nullable(),
        sku: z.string().nullable(),
        price: z.number().nullable(),
        available: z.int().nullable().describe("units in the catalog mirror, summed over locations; null when unknown"),
        signups: count,
        waiting: count,
        units_wanted: count.describe("units the waiting signups want: their quantities summed"),
        notified: count,
        conversions: count,
        conversion_rate: ratio,
        demand_value: money.describe("price x units_wanted"),
      }),
    ),
  }),
  method: "GET",
  path: "/back_in_stock/reports/products_in_demand",
  description: `Variants by demand, most waiting signups first: { from, to, variants: [{ variant_id, product_id, product_title, variant_title, sku, price, available (sum over locations in the catalog mirror; null when unknown), signups, waiting, units_wanted (the waiting signups' quantities summed), notified, conversions, conversion_rate, demand_value (price x units_wanted) }] }. Counts cover the signups created in the period when from/to are given. limit: 1-250 variants (default 50). ${FILTERS}`,
  kind: "read",
  input: REPORT_INPUTS.products_in_demand,
  async handler(ctx, { input }) {
    const { limit, ...filters } = input;
    const table = await productsInDemandReport(ctx.db, ctx.shopId, filters, limit);
    return { from: input.from?.toISOString() ?? null, to: input.to?.toISOString() ?? null, variants: table.rows };
  },
});

const exportInput = z.strictObject({
  report: z.enum(REPORTS),
  ...REPORT_INPUTS.summary.shape,
  granularity: z.enum(GRANULARITIES).optional().describe("For signups, notifications and conversions: day (default), week or month"),
});

const SERIES_REPORTS: readonly ReportName[] = ["signups", "notifications", "conversions"];

export const exportReportAction = defineAction({
  name: "back_in_stock.reports.export",
  aliases: ["export a back in stock report as csv", "download back in stock report"],
  notes: ["Each submission is a new job; poll status_url until the job is completed, then GET its result's download_path."],
  output: jobHandleOutput,
  method: "POST",
  path: "/back_in_stock/reports/export",
  description: `Exports a back-in-stock report as CSV in a background job: report (${REPORTS.join(", ")}) and that report's filters (from, to, variant_id, product_id, channel; granularity only for signups, notifications and conversions). Answers a job handle; when the job completes its result carries export_id, download_path (GET it with the same API key: text/csv), filename and rows. The CSV has a header line and the columns of the report's JSON rows; the summary is one row; products_in_demand is not paged (up to 100000 variants).`,
  kind: "write",
  async: true,
  input: exportInput,
  async handler(ctx, { input }) {
    const { report, ...filters } = input;
    if (filters.granularity !== undefined && !SERIES_REPORTS.includes(report)) {
      throw invalidField("granularity", `is not allowed for report ${report}`);
    }
    const payload = Object.fromEntries(
      Object.entries(filters).filter(([, v]) => v !== undefined).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]),
    );
    return enqueueJob(ctx.db, reportExportJob, { report, filters: payload }, { shopId: ctx.shopId });
  },
});

/** The back-in-stock reports, in the order the catalog lists them. */
export const BACK_IN_STOCK_REPORT_ACTIONS: readonly AnyAction[] = [
  summaryReportAction,
  signupsReportAction,
  notificationsReportAction,
  conversionsReportAction,
  productsInDemandReportAction,
  exportReportAction,
];

export const backInStockReportCatalog = reportCatalogAction({
  name: "back_in_stock.reports.list",
  path: "/back_in_stock/reports",
  area: "back-in-stock",
  aliases: ["list the back in stock reports", "which back in stock reports are there"],
  reports: BACK_IN_STOCK_REPORT_ACTIONS,
});
