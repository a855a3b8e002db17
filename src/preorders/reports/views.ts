import { z } from "zod";
import { DEFAULT_PER_PAGE } from "../../core/paging.ts";
import { Filters } from "../../core/sql-filters.ts";
import { ORDER_STATUSES } from "../orders/model.ts";
import type { ReportBody, ReportQuery } from "./query.ts";
import { GROUPED_ORDER, type Grouping, METRIC_FIELDS, afterKey, groupedRows, summaryParts } from "./reads.ts";

/**
 * The JSON report reads (GET /preorders/reports/summary, revenue, by_date, by_variant, customers)
 * as CSV: one statement per read, its columns the fields of the read's rows in the read's order,
 * built from the very subqueries the read runs (reads.ts), so the export of a read's filters holds
 * the values that read answers. Written by the exports' COPY (stream.ts) like by_offer's and
 * balance_collection's (query.ts). Decision 0245.
 */

export const READ_REPORTS = ["summary", "revenue", "by_date", "by_variant", "customers"] as const;
export type ReadReport = (typeof READ_REPORTS)[number];
type GroupedReport = Exclude<ReadReport, "summary">;

export const BY_DATE_GRANULARITIES = ["day", "week", "month"] as const;

/**
 * What a read's export takes beside the read's filters (a report body, as the read makes it):
 * by_date's granularity and the read's paging, when given (`after`: a cursor's sort key). Without
 * any paging field the export holds every row; with one, the page the read answers.
 */
export const readExportView = z.object({
  granularity: z.enum(BY_DATE_GRANULARITIES).optional(),
  page: z.int().min(1).optional(),
  per_page: z.int().min(1).optional(),
  after: z.tuple([z.string(), z.string()]).optional(),
});
export type ReadExportView = z.output<typeof readExportView>;

/** The grouped reads' groupings (their sort key k1, k2 and extra columns over the lines `f`). */
export function groupingOf(report: GroupedReport, granularity?: (typeof BY_DATE_GRANULARITIES)[number]): Grouping {
  switch (report) {
    case "revenue":
      return { k1: "coalesce(f.offer_id::text, '')", k2: "f.currency", columns: "max(f.offer_name) as offer_name", groupBy: "1, 2" };
    case "by_date":
      return {
        k1: `to_char(date_trunc('${BY_DATE_GRANULARITIES.find((g) => g === granularity) ?? "day"}', f.platform_created_at at time zone 'UTC'), 'YYYY-MM-DD')`,
        k2: "f.currency",
        columns: "count(*) as line_count",
        groupBy: "1, 2",
      };
    case "by_variant":
      return { k1: "coalesce(f.variant_id, '')", k2: "f.currency", columns: "max(f.product_id) as product_id", groupBy: "1, 2" };
    case "customers":
      return {
        k1: "coalesce(f.email, '')",
        k2: "f.currency",
        columns: `to_char(min(f.platform_created_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as first_order_at,
      to_char(max(f.platform_created_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as last_order_at`,
        groupBy: "1, 2",
      };
  }
}

/** The metrics as CSV cells of grouped rows `r` (counts as integers, amounts as the read's text). */
const METRIC_CELLS = METRIC_FIELDS.map((m) => (m === "orders" || m === "units" ? `r.${m}::text` : `r.${m}`));

/**
 * Each grouped read's CSV: its row fields (the read's item, in order) as expressions over the
 * grouped rows `r` (a key that is '' in `r` is the read's null), the joins some need (`shop`: the
 * shop's placeholder), and the columns PostgreSQL formats (numbers, dates, uuids: passed by the
 * spreadsheet rule as they are, see FORMATTED_COLUMNS in query.ts).
 */
const GROUPED_CSV: Record<GroupedReport, { columns: string[]; cells: string[]; joins?: (shop: string) => string; formatted: string[] }> = {
  revenue: {
    columns: ["offer_id", "offer_name", "currency", ...METRIC_FIELDS],
    cells: ["nullif(r.k1, '')", "r.offer_name", "r.k2", ...METRIC_CELLS],
    formatted: ["offer_id", ...METRIC_FIELDS],
  },
  by_date: {
    columns: ["period_start", "currency", ...METRIC_FIELDS],
    cells: ["r.k1", "r.k2", ...METRIC_CELLS],
    formatted: ["period_start", ...METRIC_FIELDS],
  },
  by_variant: {
    columns: ["variant_id", "product_id", "title", "product_title", "currency", ...METRIC_FIELDS],
    cells: ["nullif(r.k1, '')", "r.product_id", "v.title", "p.title", "r.k2", ...METRIC_CELLS],
    // The read's titles: the variant's and its product's in the catalog mirror (null once deleted).
    joins: (shop) => `left join variants v on v.shop_id = ${shop} and v.id = r.k1 left join products p on p.shop_id = v.shop_id and p.id = v.product_id`,
    formatted: METRIC_FIELDS.slice(),
  },
  customers: {
    columns: ["email", "currency", "first_order_at", "last_order_at", ...METRIC_FIELDS],
    cells: ["nullif(r.k1, '')", "r.k2", "r.first_order_at", "r.last_order_at", ...METRIC_CELLS],
    formatted: ["first_order_at", "last_order_at", ...METRIC_FIELDS],
  },
};

function groupedQuery(report: GroupedReport, body: ReportBody, view: ReadExportView, shopId: string): ReportQuery {
  const csv = GROUPED_CSV[report];
  const rows = groupedRows(body, shopId, groupingOf(report, view.granularity));
  const where = new Filters(rows.params);
  const joins = csv.joins ? ` ${csv.joins(where.param(shopId))}` : "";
  if (view.after) where.add(afterKey(where, view.after));
  const paged = view.page !== undefined || view.per_page !== undefined || view.after !== undefined;
  const perPage = view.per_page ?? DEFAULT_PER_PAGE;
  const offset = view.after === undefined ? ((view.page ?? 1) - 1) * perPage : 0;
  const cells = csv.cells.map((cell, i) => `${cell} as "${csv.columns[i] ?? `column_${String(i)}`}"`);
  const sql = `select ${cells.join(", ")} from (${rows.sql}) r${joins} where ${where.sql()} ${GROUPED_ORDER}${paged ? ` limit ${String(perPage)} offset ${String(offset)}` : ""}`;
  return { sql, values: where.params, count: counted(sql, where.params), columns: csv.columns, formatted: csv.formatted };
}

function counted(sql: string, values: unknown[]): ReportQuery["count"] {
  return { sql: `select (select count(*) from (${sql}) counted)::int as n`, values };
}

/**
 * The summary as key/value rows (section, key, currency, value): the period asked for (section
 * period, keys from and to, empty when not given), each currency's metrics (section currencies,
 * the currency named, currencies in the read's order, metrics in its field order), then the orders
 * by status (section orders_by_status, every status, 0 when none). Read back in that order they
 * give the read's answer.
 */
function summaryQuery(body: ReportBody, shopId: string): ReportQuery {
  const parts = summaryParts(body, shopId);
  const values = new Filters(parts.params);
  const metrics = METRIC_FIELDS.map((m, i) => `(${String(i)}, '${m}', t.${m}::text)`).join(", ");
  const statuses = ORDER_STATUSES.map((s, i) => `(${String(i)}, '${s}')`).join(", ");
  const sql = `select s.section, s.key, s.currency, s.value from (
      select 0 as part, null::text as currency, 0 as ord, 'period' as section, 'from' as key, ${values.param(body.from ?? null)}::text as value
      union all select 0, null, 1, 'period', 'to', ${values.param(body.to ?? null)}::text
      union all select 1, t.currency, m.ord, 'currencies', m.key, m.value from (${parts.totals}) t cross join lateral (values ${metrics}) m(ord, key, value)
      union all select 2, null, st.ord, 'orders_by_status', st.status, coalesce(c.n, 0)::text from (values ${statuses}) st(ord, status) left join (${parts.statuses}) c on c.status = st.status
    ) s order by s.part, s.currency, s.ord`;
  return { sql, values: values.params, count: counted(sql, values.params), columns: ["section", "key", "currency", "value"], formatted: ["section", "key", "value"] };
}

/** A read's CSV export as the exports' COPY runs it. */
export function readExportQuery(report: ReadReport, body: ReportBody, view: ReadExportView, shopId: string): ReportQuery {
  return report === "summary" ? summaryQuery(body, shopId) : groupedQuery(report, body, view, shopId);
}
