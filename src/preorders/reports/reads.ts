import type { Db } from "../../core/db.ts";
import { Filters } from "../../core/sql-filters.ts";
import { type ReportBody, byOfferLines } from "./query.ts";

/**
 * The JSON report reads (GET /preorders/reports/...): sums of the by_offer export's own records
 * (byOfferLines, query.ts), a preorder line's share of its order's amounts over orders neither
 * cancelled nor refunded, for the same filters; so a read and an export agree, the export's
 * per-line rows (granularity none) included. Every amount is summed unrounded and rounded once per row.
 */

const MONEY_METRICS = ["gross_sales", "deposits_paid", "balance_due", "balance_collected", "balance_outstanding"] as const;

/** The metrics every report row carries, in the order the reads answer them (MetricRow). */
export const METRIC_FIELDS = ["orders", "units", ...MONEY_METRICS] as const;

export interface MetricRow {
  orders: number;
  units: number;
  gross_sales: string;
  deposits_paid: string;
  balance_due: string;
  balance_collected: string;
  balance_outstanding: string;
}

/** The live preorder lines the filters select, with their apportioned amounts, as a subquery `f`; its parameters are `params`. */
function lineFacts(body: ReportBody, shopId: string): { sql: string; params: unknown[] } {
  const { sql, where } = byOfferLines(body, shopId, { live: true });
  return { sql, params: where.params };
}

const METRICS_SELECT = `count(distinct f.order_id)::int as orders, coalesce(sum(f.units), 0)::int as units,
  ${MONEY_METRICS.map((m) => `round(coalesce(sum(f.${m}), 0), 2)::text as ${m}`).join(", ")}`;

/** Totals per currency over the lines `facts` (a subquery `f`): a row per currency. */
const totalsOf = (facts: string) => `select f.currency, ${METRICS_SELECT} from ${facts} group by f.currency`;

/** Orders counted by status over the lines `facts`. */
const statusesOf = (facts: string) => `select f.status, count(distinct f.order_id)::int as n from ${facts} group by f.status`;

/** Totals per currency. */
export async function totalsByCurrency(db: Db, shopId: string, body: ReportBody): Promise<(MetricRow & { currency: string })[]> {
  const facts = lineFacts(body, shopId);
  const { rows } = await db.query<MetricRow & { currency: string }>(`${totalsOf(facts.sql)} order by f.currency`, facts.params);
  return rows;
}

/** Orders (any status) with a preorder line the filters select, counted by status. */
export async function ordersByStatus(db: Db, shopId: string, body: ReportBody): Promise<Record<string, number>> {
  const { sql, where } = byOfferLines(body, shopId, { live: false });
  const { rows } = await db.query<{ status: string; n: number }>(statusesOf(sql), where.params);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/**
 * The summary's two parts as subqueries of one statement, the same as totalsByCurrency (`totals`,
 * unordered) and ordersByStatus (`statuses`) run apart; their values are `params`.
 */
export function summaryParts(body: ReportBody, shopId: string): { totals: string; statuses: string; params: unknown[] } {
  const live = byOfferLines(body, shopId, { live: true });
  const all = byOfferLines(body, shopId, { live: false, params: live.where.params });
  return { totals: totalsOf(live.sql), statuses: statusesOf(all.sql), params: all.where.params };
}

/** A grouped report: each row's sort key is (k1, k2), text, in byte order (the keyset of its cursor). */
export interface Grouping {
  /** Expressions over `f` for the two sort keys. */
  k1: string;
  k2: string;
  /** Extra columns (expressions over `f`, aggregated or grouped), named. */
  columns: string;
  groupBy: string;
}

export type GroupedRow = MetricRow & { k1: string; k2: string } & Record<string, unknown>;

/**
 * A grouped report's rows, unordered (k1, k2, the grouping's columns and the metrics), as one
 * statement with its parameters: what the JSON read pages through and its CSV export writes.
 */
export function groupedRows(body: ReportBody, shopId: string, grouping: Grouping): { sql: string; params: unknown[] } {
  const facts = lineFacts(body, shopId);
  return { sql: `select ${grouping.k1} as k1, ${grouping.k2} as k2, ${grouping.columns}, ${METRICS_SELECT} from ${facts.sql} group by ${grouping.groupBy}`, params: facts.params };
}

/** The order of a grouped report's rows `r`: their sort key (k1, k2), in byte order. */
export const GROUPED_ORDER = `order by r.k1 collate "C", r.k2 collate "C"`;

/** The keyset condition on grouped rows `r`: after the sort key `after`, its values taken by `where`. */
export function afterKey(where: Filters, after: readonly [string, string]): string {
  return `(r.k1 collate "C", r.k2 collate "C") > (${where.param(after[0])}::text collate "C", ${where.param(after[1])}::text collate "C")`;
}

/** One page of a grouped report: the rows after `after` (keyset) or at `offset`, and the total row count. */
export async function groupedPage(
  db: Db,
  shopId: string,
  body: ReportBody,
  grouping: Grouping,
  page: { limit: number; offset: number; after: readonly [string, string] | undefined },
): Promise<{ rows: GroupedRow[]; total: number }> {
  const { sql: inner, params } = groupedRows(body, shopId, grouping);
  const { rows: counted } = await db.query<{ n: number }>(`select count(*)::int as n from (${inner}) r`, params);
  const keyset = new Filters(params);
  if (page.after) keyset.add(afterKey(keyset, page.after));
  const after = page.after ? ` where ${keyset.sql()}` : "";
  const { rows } = await db.query<GroupedRow>(`select * from (${inner}) r${after} ${GROUPED_ORDER} limit ${String(page.limit)} offset ${String(page.offset)}`, keyset.params);
  return { rows, total: counted[0]?.n ?? 0 };
}
