import { z } from "zod";
import type { Db } from "../../core/db.ts";
import { SIGNUP_CHANNELS, productIdSchema, variantIdSchema } from "../signups/model.ts";
import { Filters } from "../../core/sql-filters.ts";
import { queryInt } from "../../core/params.ts";
import { periodEnd, periodStart } from "../../core/period.ts";

/**
 * The back-in-stock reports, each one set-based query: shared by the report reads and the CSV
 * export job. Periods are UTC; weeks start on Monday (ISO). `from` is inclusive, `to` exclusive.
 */

export const REPORTS = ["summary", "signups", "notifications", "conversions", "products_in_demand"] as const;
export type ReportName = (typeof REPORTS)[number];
export const GRANULARITIES = ["day", "week", "month"] as const;
const PRODUCTS_IN_DEMAND_MAX = 250;
/** An export is not paged: it carries up to this many variants. */
const PRODUCTS_IN_DEMAND_EXPORT_MAX = 100_000;

const common = {
  from: periodStart.optional(),
  to: periodEnd.optional(),
  variant_id: variantIdSchema.optional(),
  product_id: productIdSchema.optional(),
  channel: z.enum(SIGNUP_CHANNELS).optional(),
};
const granularity = z.enum(GRANULARITIES).default("day").describe("Length of a period: day, week (from Monday) or month; UTC");

export const REPORT_INPUTS = {
  summary: z.strictObject(common),
  signups: z.strictObject({ ...common, granularity }),
  notifications: z.strictObject({ ...common, granularity }),
  conversions: z.strictObject({ ...common, granularity }),
  products_in_demand: z.strictObject({
    ...common,
    limit: queryInt(1, PRODUCTS_IN_DEMAND_MAX).default(50).describe(`Variants, 1-${PRODUCTS_IN_DEMAND_MAX} (default 50)`),
  }),
} satisfies Record<ReportName, z.ZodType>;

type ReportInput<R extends ReportName> = z.output<(typeof REPORT_INPUTS)[R]>;
type CommonInput = ReportInput<"summary">;
type SeriesInput = ReportInput<"signups">;

interface ReportTable {
  columns: readonly string[];
  rows: Record<string, unknown>[];
}

export const money = (value: string | number | null): number => Math.round(Number(value ?? 0) * 100) / 100;
export const rate = (part: number, whole: number): number => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : 0);

/** Signups of the shop matching variant, product and channel (alias s). */
function signupFilters(input: CommonInput, params: unknown[] = []): Filters {
  return new Filters(params)
    .add(`s.shop_id = $1`)
    .when(input.variant_id, (p) => `s.variant_id = ${p}`)
    .when(input.product_id, (p) => `s.product_id = ${p}`)
    .when(input.channel, (p) => `s.channel = ${p}`);
}

/**
 * Revenue of converted signups, as SQL over a relation `conv(order_id, variant_id)` of distinct
 * orders and variants: the line totals (price x quantity) of that variant's lines in the
 * converting order, from the stored platform order; cancelled orders count nothing.
 */
/** The stored platform order `o` of an order id (a gid, or the platform's number) of `conv`: shop $1. */
export const ORDER_OF = (conv: string): string => `o.shop_id = $1 and o.id in (${conv}.order_id, 'gid://shopify/Order/' || ${conv}.order_id)`;
/** The line items `li` of the stored order `o` (none when it is absent or has none). */
export const ORDER_LINE_ITEMS = `jsonb_array_elements(case when jsonb_typeof(o.payload->'line_items') = 'array' then o.payload->'line_items' else '[]'::jsonb end) li`;
/** Whether the line `li` is of the variant (a gid), which the REST payload names by its number. */
export const LINE_OF_VARIANT = (variant: string): string => `li->>'variant_id' in (${variant}, regexp_replace(${variant}, '^.*/', ''))`;
/** The stored order `o` is not cancelled. */
export const ORDER_NOT_CANCELLED = `coalesce(o.payload->>'cancelled_at', '') = ''`;
const ORDER_LINES = `
  join platform_orders o on ${ORDER_OF("conv")}
  cross join lateral ${ORDER_LINE_ITEMS}
  where ${ORDER_NOT_CANCELLED}
    and ${LINE_OF_VARIANT("conv.variant_id")}`;
export const LINE_TOTAL = `(li->>'price')::numeric * (li->>'quantity')::numeric`;

interface Summary {
  signups: number;
  pending: number;
  notified: number;
  conversions: number;
  conversion_rate: number;
  unsubscribed: number;
  recovered_revenue: number;
}

/** Figures of the signups created in the period (a cohort): counts by where they stand now. */
export async function summaryReport(db: Db, shopId: string, input: CommonInput): Promise<Summary> {
  const where = signupFilters(input, [shopId])
    .when(input.from, (p) => `s.created_at >= ${p}`)
    .when(input.to, (p) => `s.created_at < ${p}`);
  const { rows } = await db.query<Omit<Summary, "conversion_rate" | "recovered_revenue"> & { recovered_revenue: string }>(
    `with cohort as (select s.* from bis_signups s where ${where.sql()}),
     conv as (select distinct converted_order_id as order_id, variant_id from cohort where converted_at is not null and converted_order_id is not null)
     select count(*)::int as signups,
            count(*) filter (where status = 'waiting')::int as pending,
            count(*) filter (where notified_at is not null)::int as notified,
            count(*) filter (where converted_at is not null)::int as conversions,
            count(*) filter (where status = 'unsubscribed')::int as unsubscribed,
            (select coalesce(sum(${LINE_TOTAL}), 0) from conv ${ORDER_LINES}) as recovered_revenue
     from cohort`,
    where.params,
  );
  const row = rows[0];
  if (!row) throw new Error("summary returned no row");
  return {
    signups: row.signups,
    pending: row.pending,
    notified: row.notified,
    conversions: row.conversions,
    conversion_rate: rate(row.conversions, row.notified),
    unsubscribed: row.unsubscribed,
    recovered_revenue: money(row.recovered_revenue),
  };
}

/**
 * A time series: `events` is SQL yielding (ts timestamptz, ...) with its own filters using the
 * params; every period from `from` (or the first event) to `to` (or now) gets a row, zeros included.
 */
async function series(db: Db, where: Filters, input: SeriesInput, events: string, aggregates: string): Promise<Record<string, unknown>[]> {
  const g = where.param(input.granularity);
  const from = where.param(input.from ?? null);
  const to = where.param(input.to ?? null);
  const { rows } = await db.query(
    `with events as (${events}),
     bucketed as (select e.*, date_trunc(${g}::text, e.ts at time zone 'UTC') as bucket from events e),
     bounds as (
       select date_trunc(${g}::text, coalesce(${from}::timestamptz, (select min(ts) from events)) at time zone 'UTC') as lo,
              date_trunc(${g}::text, (coalesce(${to}::timestamptz, now()) - interval '1 microsecond') at time zone 'UTC') as hi
     ),
     periods as (select generate_series(lo, hi, ('1 ' || ${g}::text)::interval) as bucket from bounds where lo <= hi)
     select to_char(periods.bucket, 'YYYY-MM-DD') as period, ${aggregates}
     from periods left join bucketed b on b.bucket = periods.bucket
     group by periods.bucket
     order by periods.bucket`,
    where.params,
  );
  return rows;
}

/** Signups created per period, by channel and by where they stand now. */
export async function signupsReport(db: Db, shopId: string, input: SeriesInput): Promise<ReportTable> {
  const where = signupFilters(input, [shopId])
    .when(input.from, (p) => `s.created_at >= ${p}`)
    .when(input.to, (p) => `s.created_at < ${p}`);
  const rows = await series(
    db,
    where,
    input,
    `select s.created_at as ts, s.channel, s.status, s.notified_at from bis_signups s where ${where.sql()}`,
    `count(b.ts)::int as signups,
     count(b.ts) filter (where b.channel = 'email')::int as email,
     count(b.ts) filter (where b.channel = 'sms')::int as sms,
     count(b.ts) filter (where b.status = 'waiting')::int as waiting,
     count(b.ts) filter (where b.notified_at is not null)::int as notified,
     count(b.ts) filter (where b.status = 'converted')::int as converted,
     count(b.ts) filter (where b.status = 'unsubscribed')::int as unsubscribed`,
  );
  return { columns: ["period", "signups", "email", "sms", "waiting", "notified", "converted", "unsubscribed"], rows };
}

/** Messages logged per period: by outcome, and sent by stage. */
export async function notificationsReport(db: Db, shopId: string, input: SeriesInput): Promise<ReportTable> {
  const where = new Filters([shopId])
    .add("n.shop_id = $1")
    .when(input.variant_id, (p) => `n.variant_id = ${p}`)
    .when(input.product_id, (p) => `n.variant_id in (select v.id from variants v where v.shop_id = $1 and v.product_id = ${p})`)
    .when(input.channel, (p) => `n.channel = ${p}`)
    .when(input.from, (p) => `n.created_at >= ${p}`)
    .when(input.to, (p) => `n.created_at < ${p}`);
  const rows = await series(
    db,
    where,
    input,
    `select n.created_at as ts, n.status, n.stage from bis_notifications n where ${where.sql()}`,
    `count(b.ts) filter (where b.status = 'sent')::int as sent,
     count(b.ts) filter (where b.status = 'failed')::int as failed,
     count(b.ts) filter (where b.status = 'blocked')::int as blocked,
     count(b.ts) filter (where b.status = 'sent' and b.stage = 'initial')::int as initial_sent,
     count(b.ts) filter (where b.status = 'sent' and b.stage = 'reminder')::int as reminder_sent,
     count(b.ts) filter (where b.status = 'sent' and b.stage = 'signup_thank_you')::int as signup_thank_you_sent`,
  );
  return { columns: ["period", "sent", "failed", "blocked", "initial_sent", "reminder_sent", "signup_thank_you_sent"], rows };
}

/**
 * Per period: signups alerted (notified_at in it), signups converted (converted_at in it), their
 * ratio, and the revenue of the conversions (each order and variant counted once, in the period
 * of its first conversion).
 */
export async function conversionsReport(db: Db, shopId: string, input: SeriesInput): Promise<ReportTable> {
  const where = signupFilters(input, [shopId]);
  const inPeriod = (column: string) => {
    const parts: string[] = [`${column} is not null`];
    if (input.from) parts.push(`${column} >= ${where.param(input.from)}`);
    if (input.to) parts.push(`${column} < ${where.param(input.to)}`);
    return parts.join(" and ");
  };
  const notifiedIn = inPeriod("s.notified_at");
  const convertedIn = inPeriod("s.converted_at");
  const rows = await series(
    db,
    where,
    input,
    `select s.notified_at as ts, 'notified' as kind, 0::numeric as amount from bis_signups s where ${where.sql()} and ${notifiedIn}
     union all
     select s.converted_at, 'converted', 0 from bis_signups s where ${where.sql()} and ${convertedIn}
     union all
     select conv.ts, 'revenue', sum(${LINE_TOTAL})
     from (select s.converted_order_id as order_id, s.variant_id, min(s.converted_at) as ts
           from bis_signups s where ${where.sql()} and ${convertedIn} and s.converted_order_id is not null
           group by 1, 2) conv
     ${ORDER_LINES}
     group by conv.order_id, conv.variant_id, conv.ts`,
    `count(b.ts) filter (where b.kind = 'notified')::int as notified,
     count(b.ts) filter (where b.kind = 'converted')::int as conversions,
     coalesce(sum(b.amount) filter (where b.kind = 'revenue'), 0) as recovered_revenue`,
  );
  return {
    columns: ["period", "notified", "conversions", "conversion_rate", "recovered_revenue"],
    rows: rows.map((r) => ({
      period: r.period,
      notified: r.notified,
      conversions: r.conversions,
      conversion_rate: rate(Number(r.conversions), Number(r.notified)),
      recovered_revenue: money(r.recovered_revenue as string),
    })),
  };
}

/**
 * Variants by demand: signups (created in the period when from/to are given) per variant, with
 * waiting, notified and converted counts, units_wanted (the waiting signups' quantities summed,
 * decision 0246), price and available stock from the catalog mirror, and demand_value = price x
 * units_wanted. Most waiting first.
 */
export async function productsInDemandReport(db: Db, shopId: string, input: CommonInput, limit: number): Promise<ReportTable> {
  const where = signupFilters(input, [shopId])
    .when(input.from, (p) => `s.created_at >= ${p}`)
    .when(input.to, (p) => `s.created_at < ${p}`);
  const max = where.param(limit);
  const { rows } = await db.query(
    `with demand as (
       select s.variant_id, count(*)::int as signups,
              count(*) filter (where s.status = 'waiting')::int as waiting,
              coalesce(sum(s.quantity) filter (where s.status = 'waiting'), 0)::int as units_wanted,
              count(*) filter (where s.notified_at is not null)::int as notified,
              count(*) filter (where s.converted_at is not null)::int as conversions
       from bis_signups s where ${where.sql()}
       group by s.variant_id
     )
     select d.variant_id, v.product_id, p.title as product_title, v.title as variant_title, v.sku, v.price::text as price,
            (select sum(il.available)::int from inventory_levels il where il.shop_id = $1 and il.inventory_item_id = v.inventory_item_id) as available,
            d.signups, d.waiting, d.units_wanted, d.notified, d.conversions,
            coalesce(v.price * d.units_wanted, 0)::text as demand_value
     from demand d
     left join variants v on v.shop_id = $1 and v.id = d.variant_id
     left join products p on p.shop_id = $1 and p.id = v.product_id
     order by d.waiting desc, d.signups desc, d.variant_id
     limit ${max}`,
    where.params,
  );
  return {
    columns: ["variant_id", "product_id", "product_title", "variant_title", "sku", "price", "available", "signups", "waiting", "units_wanted", "notified", "conversions", "conversion_rate", "demand_value"],
    rows: rows.map((r) => ({
      ...r,
      price: r.price === null ? null : money(r.price as string),
      conversion_rate: rate(Number(r.conversions), Number(r.notified)),
      demand_value: money(r.demand_value as string),
    })),
  };
}

/** Any report as one table (the summary is one row), for the CSV export. */
export async function reportTable(db: Db, shopId: string, report: ReportName, input: Record<string, unknown>): Promise<ReportTable> {
  switch (report) {
    case "summary": {
      const parsed = REPORT_INPUTS.summary.parse(input);
      const summary = await summaryReport(db, shopId, parsed);
      return {
        columns: ["from", "to", "signups", "pending", "notified", "conversions", "conversion_rate", "unsubscribed", "recovered_revenue"],
        rows: [{ from: parsed.from ?? null, to: parsed.to ?? null, ...summary }],
      };
    }
    case "signups":
      return signupsReport(db, shopId, REPORT_INPUTS.signups.parse(input));
    case "notifications":
      return notificationsReport(db, shopId, REPORT_INPUTS.notifications.parse(input));
    case "conversions":
      return conversionsReport(db, shopId, REPORT_INPUTS.conversions.parse(input));
    case "products_in_demand": {
      const { limit: _limit, ...rest } = REPORT_INPUTS.products_in_demand.parse(input);
      return productsInDemandReport(db, shopId, rest, PRODUCTS_IN_DEMAND_EXPORT_MAX);
    }
  }
}
