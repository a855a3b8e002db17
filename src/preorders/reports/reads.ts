import type { Db } from "../../core/db.ts";
import { Filters } from "../../core/sql-filters.ts";
import { LIVE_ORDER, type ReportBody, filters, metricExpressions } from "./query.ts";

/**
 * The JSON report reads (GET /preorders/reports/...): the same filters and the same amounts as the
 * by_offer CSV export (query.ts): a preorder line's share of its order's amounts, summed over
 * orders neither cancelled nor refunded. Every amount is summed unrounded and rounded once per row.
 */

const MONEY_METRICS = ["gross_sales", "deposits_paid", "balance_due", "balance_collected", "balance_outstanding"] as const;

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
  const where = filters(body, shopId, "l").add("l.selling_plan_id is not null").add(LIVE_ORDER);
  const share = "case when o.total_price > 0 then (l.price * l.quantity) / o.total_price else 0 end";
  const m = metricExpressions(share, "l.quantity", "l.price * l.quantity");
  const sql = `(select o.id as order_id, o.currency, o.email, o.platform_created_at, l.offer_id, po.name as offer_name, l.variant_id, l.product_id,
      ${m.units} as units, ${m.gross_sales} as gross_sales, ${m.deposits_paid} as deposits_paid, ${m.balance_due} as balance_due,
      ${m.balance_collected} as balance_collected, ${m.balance_outstanding} as balance_outstanding
    from preorder_order_lines l join preorder_orders o on o.id = l.order_id left join preorder_offers po on po.id = l.offer_id
    where ${where.sql()}) f`;
  return { sql, params: where.params };
}

const METRICS_SELECT = `count(distinct f.order_id)::int as orders, coalesce(sum(f.units), 0)::int as units,
  ${MONEY_METRICS.map((m) => `round(coalesce(sum(f.${m}), 0), 2)::text as ${m}`).join(", ")}`;

/** Totals per currency. */
export async function totalsByCurrency(db: Db, shopId: string, body: ReportBody): Promise<(MetricRow & { currency: string })[]> {
  const facts = lineFacts(body, shopId);
  const { rows } = await db.query<MetricRow & { currency: string }>(
    `select f.currency, ${METRICS_SELECT} from ${facts.sql} group by f.currency order by f.currency`,
    facts.params,
  );
  return rows;
}

/** Orders (any status) with a preorder line the filters select, counted by status. */
export async function ordersByStatus(db: Db, shopId: string, body: ReportBody): Promise<Record<string, number>> {
  const where = filters(body, shopId, null).add("exists (select 1 from preorder_order_lines pl where pl.order_id = o.id and pl.selling_plan_id is not null)");
  const { rows } = await db.query<{ status: string; n: number }>(`select o.status, count(*)::int as n from preorder_orders o where ${where.sql()} group by o.status`, where.params);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
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

/** One page of a grouped report: the rows after `after` (keyset) or at `offset`, and the total row count. */
export async function groupedPage(
  db: Db,
  shopId: string,
  body: ReportBody,
  grouping: Grouping,
  page: { limit: number; offset: number; after: readonly [string, string] | undefined },
): Promise<{ rows: GroupedRow[]; total: number }> {
  const facts = lineFacts(body, shopId);
  const inner = `select ${grouping.k1} as k1, ${grouping.k2} as k2, ${grouping.columns}, ${METRICS_SELECT}
    from ${facts.sql} group by ${grouping.groupBy}`;
  const { rows: counted } = await db.query<{ n: number }>(`select count(*)::int as n from (${inner}) r`, facts.params);
  const keyset = new Filters(facts.params);
  if (page.after) keyset.add(`(r.k1 collate "C", r.k2 collate "C") > (${keyset.param(page.after[0])}::text collate "C", ${keyset.param(page.after[1])}::text collate "C")`);
  const after = page.after ? ` where ${keyset.sql()}` : "";
  const values = keyset.params;
  const { rows } = await db.query<GroupedRow>(
    `select * from (${inner}) r${after} order by r.k1 collate "C", r.k2 collate "C" limit ${String(page.limit)} offset ${String(page.offset)}`,
    values,
  );
  return { rows, total: counted[0]?.n ?? 0 };
}
