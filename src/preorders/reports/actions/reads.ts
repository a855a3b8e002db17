import { z } from "zod";
import { type ActionContext, type AnyAction, defineAction } from "../../../core/action.ts";
import { pageOutput, timestampOutput } from "../../../core/outputs.ts";
import { PAGING_RULE, pageAnswer, paging } from "../../../core/paging.ts";
import { PERIOD_RULE } from "../../../core/period.ts";
import { ORDER_STATUSES } from "../../orders/model.ts";
import { type GroupedRow, type Grouping, type MetricRow, groupedPage, ordersByStatus, totalsByCurrency } from "../reads.ts";
import { BY_DATE_GRANULARITIES, groupingOf } from "../views.ts";
import { BY_DATE_FIELDS, READ_PAGING, readInput, reportFilters } from "./read-input.ts";

/**
 * JSON reads of the preorder reports, beside the CSV exports: the same period and filters
 * (query parameters here), the same amounts (a preorder line's share of its order, orders neither
 * cancelled nor refunded), so a read and an export of the same filters agree.
 */

const FILTER_HELP = `Query parameters (all optional), as the CSV exports' body takes them: from, to (${PERIOD_RULE}; on the order's creation time), offer_id and offer_ids (comma-separated, up to 100, combined), product_id and variant_id (numbers or gids), market_id (one of the shop's markets), currency (ISO 4217). Amounts are decimal strings in each currency, summed over preorder lines (each line's share of its order's amounts) of orders neither cancelled nor refunded, as in the by_offer export.`;

const NOTES = [
  "The numbers agree with POST /preorders/reports/by_offer/export for the same filters.",
  "Amounts are never summed across currencies: every row names its currency.",
];

const money = z.string().describe("decimal amount, two decimals");
const metricsShape = {
  orders: z.int().min(0).describe("distinct live orders"),
  units: z.int().min(0),
  gross_sales: money,
  deposits_paid: money,
  balance_due: money,
  balance_collected: money,
  balance_outstanding: money,
};
const metricsOf = (row: MetricRow) => ({
  orders: row.orders,
  units: row.units,
  gross_sales: row.gross_sales,
  deposits_paid: row.deposits_paid,
  balance_due: row.balance_due,
  balance_collected: row.balance_collected,
  balance_outstanding: row.balance_outstanding,
});

/** Where a read's CSV export is (export.ts, decision 0245). */
const exportNote = (path: string) => `POST ${path}/export writes this report as CSV (a job): this query as its JSON body, these rows as its rows.`;

const periodOutput = z.strictObject({ from: z.string().nullable(), to: z.string().nullable() }).describe("the period asked for, as given");

// ---- summary ----

const reportSummary = defineAction({
  name: "preorders.reports.summary",
  method: "GET",
  path: "/preorders/reports/summary",
  description: `Preorder totals for a period: per currency the live orders, units and amounts (gross_sales, deposits_paid, balance_due, balance_collected, balance_outstanding), and the orders with a preorder line counted by status (cancelled and refunded included). ${FILTER_HELP}`,
  notes: [...NOTES, exportNote("/preorders/reports/summary")],
  aliases: ["summarize preorder sales", "preorder report totals for a period"],
  kind: "read",
  input: readInput("query", {}, {}),
  output: z.strictObject({
    period: periodOutput,
    currencies: z.array(z.strictObject({ currency: z.string(), ...metricsShape })),
    orders_by_status: z.strictObject(Object.fromEntries(ORDER_STATUSES.map((s) => [s, z.int().min(0)])) as Record<(typeof ORDER_STATUSES)[number], z.ZodInt>),
  }),
  async handler(ctx, { input }) {
    const body = await reportFilters(ctx, input);
    const totals = await totalsByCurrency(ctx.db, ctx.shopId, body);
    const byStatus = await ordersByStatus(ctx.db, ctx.shopId, body);
    return {
      period: { from: input.from ?? null, to: input.to ?? null },
      currencies: totals.map((t) => ({ currency: t.currency, ...metricsOf(t) })),
      orders_by_status: Object.fromEntries(ORDER_STATUSES.map((s) => [s, byStatus[s] ?? 0])),
    };
  },
});

// ---- the grouped reads ----

function groupedRead<T extends z.ZodRawShape>(spec: {
  report: string;
  key: string;
  description: string;
  aliases: string[];
  extraInput?: T;
  grouping: (input: Record<string, unknown>) => Grouping;
  item: z.ZodObject;
  present: (row: GroupedRow) => Record<string, unknown>;
  decorate?: (ctx: ActionContext, items: Record<string, unknown>[]) => Promise<void>;
}): AnyAction {
  return defineAction({
    name: `preorders.reports.${spec.report}`,
    method: "GET",
    path: `/preorders/reports/${spec.report}`,
    description: `${spec.description} Answers { ${spec.key}, page, per_page, total, next_cursor }. ${PAGING_RULE}. ${FILTER_HELP}`,
    notes: [...NOTES, exportNote(`/preorders/reports/${spec.report}`)],
    aliases: spec.aliases,
    kind: "read",
    input: readInput("query", spec.extraInput ?? {}, READ_PAGING.query),
    output: pageOutput(spec.key, spec.item),
    async handler(ctx, { input }) {
      const body = await reportFilters(ctx, input);
      const p = paging(input as { page?: number; per_page?: number; cursor?: [string, string] });
      const { rows, total } = await groupedPage(ctx.db, ctx.shopId, body, spec.grouping(input), { limit: p.limit, offset: p.offset, after: p.after });
      const answer = pageAnswer(spec.key, p, rows, total, (r) => [r.k1, r.k2], spec.present);
      await spec.decorate?.(ctx, answer[spec.key] as Record<string, unknown>[]);
      return answer;
    },
  });
}

const reportRevenue = groupedRead({
  report: "revenue",
  key: "revenue",
  description:
    "Preorder revenue per offer and currency: gross_sales, deposits_paid, balance_due, balance_collected and balance_outstanding, with the orders and units behind them (offer_id null: lines on a selling plan no offer has yet), ordered by offer id.",
  aliases: ["preorder revenue by offer", "how much did each preorder offer sell"],
  grouping: () => groupingOf("revenue"),
  item: z.strictObject({ offer_id: z.string().nullable(), offer_name: z.string().nullable(), currency: z.string(), ...metricsShape }),
  present: (r) => ({ offer_id: r.k1 === "" ? null : r.k1, offer_name: r.offer_name ?? null, currency: r.k2, ...metricsOf(r) }),
});

const reportByDate = groupedRead({
  report: "by_date",
  key: "periods",
  description:
    "Preorder sales per period and currency (granularity day, the default, week: ISO weeks from Monday, or month; UTC), oldest first: orders, units and amounts. Periods without sales are left out. The same rows as the by_offer export with that granularity, summed over offers.",
  aliases: ["preorder sales by day", "preorder sales per week or month"],
  extraInput: BY_DATE_FIELDS,
  grouping: (input) => groupingOf("by_date", BY_DATE_GRANULARITIES.find((g) => g === input.granularity)),
  item: z.strictObject({ period_start: z.iso.date().describe("the period's first day (UTC)"), currency: z.string(), ...metricsShape }),
  present: (r) => ({ period_start: r.k1, currency: r.k2, ...metricsOf(r) }),
});

const reportByVariant = groupedRead({
  report: "by_variant",
  key: "variants",
  description:
    "Preorder sales per variant and currency: orders, units and amounts, with the variant's product and title from the catalog mirror (null once the platform deleted it), ordered by variant id.",
  aliases: ["preorder sales by variant", "which variants sold the most preorders"],
  grouping: () => groupingOf("by_variant"),
  item: z.strictObject({
    variant_id: z.string().nullable(),
    product_id: z.string().nullable(),
    title: z.string().nullable(),
    product_title: z.string().nullable(),
    currency: z.string(),
    ...metricsShape,
  }),
  present: (r) => ({ variant_id: r.k1 === "" ? null : r.k1, product_id: r.product_id ?? null, title: null, product_title: null, currency: r.k2, ...metricsOf(r) }),
  async decorate(ctx, items) {
    const ids = items.map((i) => i.variant_id).filter((id): id is string => typeof id === "string");
    if (ids.length === 0) return;
    const { rows } = await ctx.db.query<{ id: string; title: string; product_title: string | null }>(
      "select v.id, v.title, p.title as product_title from variants v left join products p on p.shop_id = v.shop_id and p.id = v.product_id where v.shop_id = $1 and v.id = any($2::text[])",
      [ctx.shopId, ids],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const item of items) {
      const found = typeof item.variant_id === "string" ? byId.get(item.variant_id) : undefined;
      if (found) Object.assign(item, { title: found.title, product_title: found.product_title });
    }
  },
});

const reportCustomers = groupedRead({
  report: "customers",
  key: "customers",
  description:
    "Preorder customers per e-mail and currency: orders, units and amounts (balance_outstanding is what they still owe), with their first and last preorder, ordered by e-mail (null: orders without one).",
  aliases: ["preorder customers report", "who placed the most preorders"],
  grouping: () => groupingOf("customers"),
  item: z.strictObject({ email: z.string().nullable(), currency: z.string(), first_order_at: timestampOutput, last_order_at: timestampOutput, ...metricsShape }),
  present: (r) => ({ email: r.k1 === "" ? null : r.k1, currency: r.k2, first_order_at: r.first_order_at, last_order_at: r.last_order_at, ...metricsOf(r) }),
});

export const REPORT_READ_ACTIONS: readonly AnyAction[] = [reportSummary, reportRevenue, reportByDate, reportByVariant, reportCustomers];
