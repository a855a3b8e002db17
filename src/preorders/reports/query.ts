import { z } from "zod";
import { platformGid, platformId, positiveJsonInt } from "../../core/params.ts";
import { ISO_4217, offerId } from "../params.ts";
import { Filters } from "../../core/sql-filters.ts";
import { PERIOD_RULE, dateOrTimestamp, lowerBound, upperBound, withPeriodOrder } from "../../core/period.ts";

/**
 * The preorder reports as SQL: one query per report and granularity, every value a parameter,
 * every column text (formatted by PostgreSQL), so the CSV export is the statement's own
 * `COPY (...) TO STDOUT (FORMAT csv)` (stream.ts).
 */

export const REPORTS = ["by_offer", "balance_collection"] as const;
export type ReportName = (typeof REPORTS)[number];

const GRANULARITIES = ["none", "day", "week", "month"] as const;
const METRICS = ["orders", "units", "gross_sales", "deposits_paid", "balance_due", "balance_collected", "balance_outstanding"] as const;
type Metric = (typeof METRICS)[number];
const DEPOSIT_METRICS: readonly Metric[] = ["deposits_paid"];
const BALANCE_METRICS: readonly Metric[] = ["balance_due", "balance_collected", "balance_outstanding"];

const MAX_PER_PAGE = 1000;

export const reportBody = withPeriodOrder(
  z.strictObject({
    from: dateOrTimestamp.optional(),
    to: dateOrTimestamp.optional(),
    offer_id: offerId.optional(),
    offer_ids: z.array(offerId).min(1).max(100).optional(),
    product_id: platformId("Product").optional(),
    variant_id: platformId("ProductVariant").optional(),
    market_id: z.string().min(1).max(200).optional(),
    currency: ISO_4217.optional(),
    granularity: z.enum(GRANULARITIES).default("none"),
    metrics: z.array(z.enum(METRICS)).min(1).max(METRICS.length).optional(),
    include_deposits: z.boolean().default(true),
    include_balances: z.boolean().default(true),
    page: positiveJsonInt().optional(),
    per_page: positiveJsonInt(MAX_PER_PAGE).optional(),
  }),
);
export type ReportBody = z.output<typeof reportBody>;

/** What /help says of the body, beside its JSON Schema. */
export const REPORT_BODY_HELP =
  `Body (all optional): from, to (${PERIOD_RULE}; on the order's creation time), offer_id and offer_ids (up to 100, combined), product_id and variant_id (numbers or gids), market_id (one of the shop's markets), currency (ISO 4217, e.g. USD), granularity (none: one row per record, the default; day, week (ISO weeks from Monday), month: one row per period), metrics (any of orders, units, gross_sales, deposits_paid, balance_due, balance_collected, balance_outstanding; default all; orders only with a granularity), include_deposits and include_balances (default true; false drops those metrics), page (from 1) and per_page (1 to 1000): one page of rows instead of all of them. Amounts are in the order's currency, two decimals; timestamps ISO 8601 UTC.`;

export interface ReportQuery {
  sql: string;
  values: unknown[];
  /** How many rows `sql` gives, without sorting them (for progress): a statement and its values. */
  count: { sql: string; values: unknown[] };
  columns: string[];
  /** The columns PostgreSQL formats itself (FORMATTED_COLUMNS), the others being text as stored. */
  formatted: string[];
}

/**
 * The columns whose text PostgreSQL writes from a uuid, a timestamp or a number (`::text`, TS,
 * MONEY, to_char): never empty, never starting like a spreadsheet formula but as a plain number
 * (`-2.50`), so the CSV export's spreadsheet rule would leave them as they are and need not look
 * at them. A column of stored text (a name, an e-mail, a platform id) must not be named here.
 */
const FORMATTED_COLUMNS: ReadonlySet<string> = new Set(["offer_id", "order_id", "order_created_at", "balance_collection_requested_at", "period_start", ...METRICS]);

/**
 * The statement, each column named as in the CSV header (so COPY's header is the same), and its
 * count: of `counted` when given (a cheaper statement giving the same rows, its own values), else
 * of the statement's rows.
 */
function build(select: string[], columns: string[], body: string, orderBy: string, request: ReportBody, where: Filters, counted?: Filters & { from: string }): ReportQuery {
  const named = select.map((expr, i) => `${expr} as "${columns[i] ?? `column_${i}`}"`);
  const count = counted ? `select count(*) ${counted.from} where ${counted.sql()}` : `select count(*) from (select 1 ${body}) report`;
  let countSql = `select (${count})::int as n`;
  if (request.page !== undefined || request.per_page !== undefined) {
    const perPage = request.per_page ?? MAX_PER_PAGE;
    const offset = ((request.page ?? 1) - 1) * perPage;
    countSql = `select least(greatest((${count}) - ${offset}, 0), ${perPage})::int as n`;
  }
  const formatted = columns.filter((column) => FORMATTED_COLUMNS.has(column));
  return {
    sql: `select ${named.join(", ")} ${body} ${orderBy}${paging(request)}`,
    values: where.params,
    count: { sql: countSql, values: counted ? counted.params : where.params },
    columns,
    formatted,
  };
}

const TS = (expr: string) => `to_char(${expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
const MONEY = (expr: string) => `round(${expr}, 2)::text`;

/** The metrics asked for, in the fixed order, less the families switched off. */
function chosenMetrics(body: ReportBody): Metric[] {
  const asked = new Set(body.metrics ?? METRICS);
  return METRICS.filter(
    (m) =>
      asked.has(m) &&
      !(m === "orders" && body.granularity === "none") &&
      !(body.include_deposits === false && DEPOSIT_METRICS.includes(m)) &&
      !(body.include_balances === false && BALANCE_METRICS.includes(m)),
  );
}

/** Whether the request filters on the order itself (its creation time, currency or market), not only on its lines. */
function filtersOrders(body: ReportBody): boolean {
  return lowerBound(body.from) !== null || upperBound(body.to) !== null || Boolean(body.currency) || Boolean(body.market_id);
}

/** The line-level filters on lines `alias`, their values taken by `where`. */
function lineFilterClauses(body: ReportBody, alias: string, where: Filters): string[] {
  const clauses: string[] = [];
  const offers = [...new Set([...(body.offer_id ? [body.offer_id] : []), ...(body.offer_ids ?? [])])];
  if (offers.length > 0) clauses.push(`${alias}.offer_id = any(${where.param(offers)}::uuid[])`);
  if (body.product_id) clauses.push(`${alias}.product_id = ${where.param(body.product_id)}`);
  if (body.variant_id) clauses.push(`${alias}.variant_id = ${where.param(body.variant_id)}`);
  return clauses;
}

/** Filters on orders `o` (and, for line-level filters, a line `l` or an exists over lines). */
function filters(body: ReportBody, shopId: string, lineAlias: string | null, initial: unknown[] = []): Filters {
  const where = new Filters(initial);
  where.add(`o.shop_id = ${where.param(shopId)}`);
  where.when(lowerBound(body.from), (p) => `o.platform_created_at >= ${p}`);
  where.when(upperBound(body.to), (p) => `o.platform_created_at < ${p}`);
  where.when(body.currency || undefined, (p) => `o.currency = ${p}`);
  where.when(body.market_id ? platformGid("Market", body.market_id) : undefined, (p) => `o.market_id = ${p}`);
  const lineFilters = lineFilterClauses(body, lineAlias ?? "lf", where);
  if (lineAlias) for (const clause of lineFilters) where.add(clause);
  else if (lineFilters.length > 0) {
    where.add(`exists (select 1 from preorder_order_lines lf where lf.order_id = o.id and lf.selling_plan_id is not null and ${lineFilters.join(" and ")})`);
  }
  return where;
}

function paging(body: ReportBody): string {
  if (body.page === undefined && body.per_page === undefined) return "";
  const perPage = body.per_page ?? MAX_PER_PAGE;
  return ` limit ${perPage} offset ${((body.page ?? 1) - 1) * perPage}`;
}

/**
 * Sums count live orders only: a cancelled or refunded order sold nothing (as for the preorder
 * counts), so it adds no order, unit or amount. Per-record rows still list it, with its status.
 */
const LIVE_ORDER = "o.status not in ('cancelled', 'refunded')";

/**
 * The metric expressions of one record (a preorder line, or an order): `share` apportions an
 * order's amounts to the record. A record of a cancelled or refunded order has zero units and
 * amounts (LIVE_ORDER), so the per-record rows of an export add up to its per-period rows and to
 * the JSON reads. `orders` is the aggregate over orders `o`.
 */
function metricExpressions(share: string, units: string, gross: string): Record<Metric, string> {
  const live = (expr: string) => `case when ${LIVE_ORDER} then ${expr} else 0 end`;
  return {
    orders: "count(distinct o.id)",
    units: live(units),
    gross_sales: live(gross),
    deposits_paid: live(`case when o.balance_amount > 0 then (o.total_price - o.balance_amount) * ${share} else 0 end`),
    balance_due: live(`o.balance_amount * ${share}`),
    balance_collected: live(`(o.balance_amount - o.total_outstanding) * ${share}`),
    balance_outstanding: live(`o.total_outstanding * ${share}`),
  };
}

/** The first day of the period of the order's creation; `alias`: orders `o`, or records `f` carrying it. */
function periodStart(granularity: ReportBody["granularity"], alias = "o"): string {
  return `to_char(date_trunc('${granularity}', ${alias}.platform_created_at at time zone 'UTC'), 'YYYY-MM-DD')`;
}

/**
 * by_offer's per-line rows counted on the lines alone, when nothing filters on the order: a line's
 * shop is its order's (their foreign key, sql/104) and the offer's join is a left one, so the
 * count is the same, from an index-only scan (bench:export: 0.03 s against 0.31 s over 1M lines,
 * counted before the COPY starts).
 */
function linesOnly(body: ReportBody, shopId: string): (Filters & { from: string }) | undefined {
  if (filtersOrders(body)) return undefined;
  const where = Object.assign(new Filters(), { from: "from preorder_order_lines l" });
  where.add(`l.shop_id = ${where.param(shopId)}`).add("l.selling_plan_id is not null");
  for (const clause of lineFilterClauses(body, "l", where)) where.add(clause);
  return where;
}

/** The amounts of a by_offer line, as columns of `byOfferLines`. */
const LINE_METRICS = METRICS.filter((m): m is Exclude<Metric, "orders"> => m !== "orders");

/**
 * The by_offer report's records, the one definition behind its CSV export and the JSON report
 * reads (reads.ts): a subquery `f`, one row per preorder line the filters select, its order's
 * amounts apportioned to the line by its share of the order's total (zero for a cancelled or
 * refunded order, see metricExpressions), unrounded. `live`: only lines of live orders (LIVE_ORDER),
 * as every sum takes them; without it, every line with its order's status, as granularity none
 * lists them. Its values are `where.params`: `options.params` (a statement's values before these,
 * so two subqueries can share one statement) and its own after them.
 */
export function byOfferLines(body: ReportBody, shopId: string, options: { live: boolean; params?: unknown[] }): { sql: string; where: Filters } {
  const where = filters(body, shopId, "l", options.params).add("l.selling_plan_id is not null");
  if (options.live) where.add(LIVE_ORDER);
  const share = "case when o.total_price > 0 then (l.price * l.quantity) / o.total_price else 0 end";
  const expr = metricExpressions(share, "l.quantity", "l.price * l.quantity");
  const sql = `(select l.offer_id, po.name as offer_name, l.selling_plan_id, o.id as order_id, o.name as order_name, o.platform_created_at, o.status,
      o.email, l.product_id, l.variant_id, o.currency, l.platform_line_id, ${LINE_METRICS.map((m) => `${expr[m]} as ${m}`).join(", ")}
    from preorder_order_lines l join preorder_orders o on o.id = l.order_id left join preorder_offers po on po.id = l.offer_id
    where ${where.sql()}) f`;
  return { sql, where };
}

/**
 * by_offer: granularity none gives one row per preorder line (byOfferLines, every status);
 * otherwise one row per period, offer and currency, summing the live lines.
 */
function byOffer(body: ReportBody, shopId: string): ReportQuery {
  const metrics = chosenMetrics(body);
  if (body.granularity === "none") {
    const { sql: lines, where } = byOfferLines(body, shopId, { live: false });
    const columns = ["offer_id", "offer_name", "selling_plan_id", "order_id", "order_name", "order_created_at", "status", "customer_email", "product_id", "variant_id", "currency", ...metrics];
    const select = [
      "f.offer_id::text",
      "f.offer_name",
      "f.selling_plan_id",
      "f.order_id::text",
      "f.order_name",
      TS("f.platform_created_at"),
      "f.status",
      "f.email",
      "f.product_id",
      "f.variant_id",
      "f.currency",
      ...metrics.map((m) => (m === "units" ? "f.units::text" : MONEY(`f.${m}`))),
    ];
    return build(select, columns, `from ${lines}`, "order by f.platform_created_at, f.order_id, f.platform_line_id", body, where, linesOnly(body, shopId));
  }
  const { sql: lines, where } = byOfferLines(body, shopId, { live: true });
  const columns = ["period_start", "offer_id", "offer_name", "currency", ...metrics];
  const select = [periodStart(body.granularity, "f"), "f.offer_id::text", "f.offer_name", "f.currency", ...metrics.map((m) => aggregate(m, m === "orders" ? "count(distinct f.order_id)" : `f.${m}`))];
  return build(select, columns, `from ${lines} group by ${select.slice(0, 4).join(", ")}`, "order by 1, 3 nulls last, 2, 4", body, where);
}

function aggregate(metric: Metric, expr: string): string {
  if (metric === "orders") return `${expr}::text`;
  if (metric === "units") return `sum(${expr})::text`;
  return MONEY(`sum(${expr})`);
}

/**
 * balance_collection: the orders that had a balance after their deposit. Granularity none gives
 * one row per order (every status; a cancelled or refunded order's metrics zero, see
 * metricExpressions); otherwise one row per period and currency, summing the live orders.
 */
function balanceCollection(body: ReportBody, shopId: string): ReportQuery {
  const where = filters(body, shopId, null).add("o.balance_amount > 0");
  const metrics = chosenMetrics(body);
  const units = "(select coalesce(sum(u.quantity), 0) from preorder_order_lines u where u.order_id = o.id and u.selling_plan_id is not null)";
  const expr = metricExpressions("1", units, "o.total_price");
  const from = "from preorder_orders o";
  if (body.granularity === "none") {
    const columns = ["order_id", "order_name", "order_created_at", "status", "customer_email", "currency", "balance_collection_requested_at", ...metrics];
    const select = [
      "o.id::text",
      "o.name",
      TS("o.platform_created_at"),
      "o.status",
      "o.email",
      "o.currency",
      TS("o.balance_requested_at"),
      ...metrics.map((m) => (m === "units" ? `${expr.units}::text` : MONEY(expr[m]))),
    ];
    return build(select, columns, `${from} where ${where.sql()}`, "order by o.platform_created_at, o.id", body, where);
  }
  const columns = ["period_start", "currency", ...metrics];
  const select = [periodStart(body.granularity), "o.currency", ...metrics.map((m) => aggregate(m, expr[m]))];
  where.add(LIVE_ORDER);
  return build(select, columns, `${from} where ${where.sql()} group by ${select.slice(0, 2).join(", ")}`, "order by 1, 2", body, where);
}

export function reportQuery(report: ReportName, body: ReportBody, shopId: string): ReportQuery {
  return report === "by_offer" ? byOffer(body, shopId) : balanceCollection(body, shopId);
}
