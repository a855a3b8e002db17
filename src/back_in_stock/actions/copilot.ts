import { z } from "zod";
import { defineAction } from "../../core/action.ts";
import { timestampOutput } from "../../core/outputs.ts";
import { queryInt } from "../../core/params.ts";
import { productIdSchema } from "../signups/model.ts";
import { Filters } from "../../core/sql-filters.ts";

/** Conversion history below this many notified signups is too thin; the next wider level is used. */
const MIN_HISTORY = 10;
/** Conversion rate assumed when the shop has no alert history yet. */
const DEFAULT_CONVERSION_RATE = 0.1;
const TREND_MIN = 0.5;
const TREND_MAX = 2;

const SCORING = `Each variant with waiting signups is scored: expected_sales = units_wanted (the waiting signups' quantities summed: a signup wants 1 unit unless it gave a quantity) x conversion_rate, where conversion_rate is converted / notified of past alerts for this variant, else (fewer than ${MIN_HISTORY} notified) for its product, else for the whole shop, else an assumed ${DEFAULT_CONVERSION_RATE * 100}% (conversion_rate_source says which); unmet_sales = expected_sales minus the units available now (catalog mirror, summed over locations; a negative stock counts as 0), never below 0; trend = (signups of the last 7 days per day) / (signups of the last 30 days per day), kept within ${TREND_MIN}-${TREND_MAX} (1 without recent signups): above 1 demand is rising; score = unmet_sales x price x trend, the revenue at stake weighted by momentum. Variants whose stock already covers the expected sales (score 0) are left out. Ranked by score, then waiting.`;

interface CopilotRow {
  variant_id: string;
  product_id: string;
  product_title: string | null;
  variant_title: string;
  sku: string | null;
  price: string;
  available: number;
  stock_known: boolean;
  waiting: number;
  units_wanted: number;
  signups_7d: number;
  signups_30d: number;
  demand_value: string;
  conversion_rate: string;
  conversion_rate_source: "variant" | "product" | "shop" | "default";
  trend: string;
  expected_sales: string;
  unmet_sales: string;
  score: string;
}

const round = (value: string | number, places: number): number => {
  const factor = 10 ** places;
  return Math.round(Number(value) * factor) / factor;
};

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function reason(row: CopilotRow): string {
  const name = row.product_title ? (row.variant_title && row.variant_title !== "Default Title" ? `${row.product_title} (${row.variant_title})` : row.product_title) : row.variant_id;
  const stock = !row.stock_known ? "its stock is unknown in the catalog mirror" : row.available <= 0 ? "it is out of stock" : `only ${row.available} in stock`;
  const trend = Number(row.trend);
  const momentum = row.signups_30d === 0 ? "no new signups lately" : trend > 1.1 ? "demand is rising" : trend < 0.9 ? "demand is slowing" : "demand is steady";
  const rate = `${round(Number(row.conversion_rate) * 100, 1)}%`;
  const history =
    row.conversion_rate_source === "default"
      ? `with no alert history yet, ${rate} of alerted customers are assumed to buy`
      : `past alerts for this ${row.conversion_rate_source} converted ${rate} of alerted customers`;
  const sales = round(row.expected_sales, 1);
  const price = round(row.price, 2);
  const units = row.units_wanted === row.waiting ? "" : ` (${plural(row.units_wanted, "unit", "units")} wanted in all)`;
  return `${plural(row.waiting, "customer is", "customers are")} waiting for ${name}${units} and ${stock}. ${plural(row.signups_7d, "signup", "signups")} in the last 7 days and ${row.signups_30d} in the last 30: ${momentum}. As ${history}, a restock should sell about ${sales} ${sales === 1 ? "unit" : "units"} (about ${round(Number(row.expected_sales) * Number(row.price), 2)} in revenue at ${price} each).`;
}

export const copilot = defineAction({
  name: "back_in_stock.copilot.get",
  aliases: ["which products should i restock first", "back in stock restock recommendations", "ask the back in stock copilot"],
  notes: [
    "Computed on each call from the shop's signups, alert history and catalog mirror; nothing is stored or sent.",
    "A variant whose stock already covers its expected sales is not recommended.",
  ],
  output: z.strictObject({
    generated_at: timestampOutput,
    scoring: z.string().describe("how the score is computed, in words"),
    recommendations: z.array(
      z.strictObject({
        rank: z.int().min(1),
        variant_id: z.string(),
        product_id: z.string(),
        product_title: z.string().nullable(),
        variant_title: z.string(),
        sku: z.string().nullable(),
        price: z.number(),
        available: z.int().nullable().describe("units in the catalog mirror, summed over locations; null when unknown"),
        waiting: z.int().min(0),
        units_wanted: z.int().min(0).describe("units the waiting signups want: their quantities summed"),
        signups_7d: z.int().min(0),
        signups_30d: z.int().min(0),
        trend: z.number().describe("recent signups per day over the 30-day rate, within 0.5-2"),
        demand_value: z.number().describe("price x units_wanted"),
        conversion_rate: z.number().min(0).max(1),
        conversion_rate_source: z.enum(["variant", "product", "shop", "default"]),
        expected_sales: z.number().min(0),
        unmet_sales: z.number().min(0),
        expected_revenue: z.number().min(0),
        score: z.number().min(0),
        reason: z.string().describe("a plain-language explanation"),
      }),
    ),
  }),
  method: "GET",
  path: "/back_in_stock/copilot",
  description: `Restock recommendations computed from this shop's data: which variants to restock first and why, as { generated_at, scoring, recommendations: [{ rank, variant_id, product_id, product_title, variant_title, sku, price, available, waiting, units_wanted, signups_7d, signups_30d, trend, demand_value (price x units_wanted), conversion_rate, conversion_rate_source, expected_sales, unmet_sales, expected_revenue, score, reason }] }, reason being a plain-language explanation. ${SCORING} Options: limit (1-50, default 10), product_id (only that product's variants).`,
  kind: "read",
  input: z.strictObject({
    limit: queryInt(1, 50).default(10),
    product_id: productIdSchema.optional(),
  }),
  async handler(ctx, { input }) {
    const where = new Filters([ctx.shopId, MIN_HISTORY, DEFAULT_CONVERSION_RATE, TREND_MIN, TREND_MAX]).when(input.product_id, (p) => `v.product_id = ${p}`);
    const limit = where.param(input.limit);
    const { rows } = await ctx.db.query<CopilotRow>(
      `with history as (
         select s.variant_id,
                count(*) filter (where s.status = 'waiting')::int as waiting,
                coalesce(sum(s.quantity) filter (where s.status = 'waiting'), 0)::int as units_wanted,
                count(*) filter (where s.created_at >= now() - interval '7 days')::int as signups_7d,
                count(*) filter (where s.created_at >= now() - interval '30 days')::int as signups_30d,
                count(*) filter (where s.notified_at is not null)::int as notified,
                count(*) filter (where s.notified_at is not null and s.converted_at is not null)::int as converted
         from bis_signups s where s.shop_id = $1
         group by s.variant_id
       ),
       shop_rate as (select sum(notified) as notified, sum(converted) as converted from history),
       product_rate as (
         select v.product_id, sum(h.notified) as notified, sum(h.converted) as converted
         from history h join variants v on v.shop_id = $1 and v.id = h.variant_id
         group by v.product_id
       ),
       candidates as (
         select h.*, v.product_id, p.title as product_title, v.title as variant_title, v.sku, v.price,
                stock.available, stock.available is not null as stock_known,
                case when h.notified >= $2 then h.converted::numeric / h.notified
                     when pr.notified >= $2 then pr.converted::numeric / pr.notified
                     when sr.notified >= $2 then sr.converted::numeric / sr.notified
                     else $3::numeric end as conversion_rate,
                case when h.notified >= $2 then 'variant' when pr.notified >= $2 then 'product'
                     when sr.notified >= $2 then 'shop' else 'default' end as conversion_rate_source,
                case when h.signups_30d = 0 then 1
                     else least(greatest((h.signups_7d / 7.0) / (h.signups_30d / 30.0), $4::numeric), $5::numeric) end as trend
         from history h
         join variants v on v.shop_id = $1 and v.id = h.variant_id
         left join products p on p.shop_id = $1 and p.id = v.product_id
         left join product_rate pr on pr.product_id = v.product_id
         cross join shop_rate sr
         cross join lateral (
           select sum(il.available)::int as available from inventory_levels il
           where il.shop_id = $1 and il.inventory_item_id = v.inventory_item_id
         ) stock
         where h.waiting > 0 and ${where.sql()}
       ),
       scored as (
         select c.*, c.units_wanted * c.conversion_rate as expected_sales,
                greatest(c.units_wanted * c.conversion_rate - greatest(coalesce(c.available, 0), 0), 0) as unmet_sales
         from candidates c
       )
       select variant_id, product_id, product_title, variant_title, sku, price::text, coalesce(available, 0) as available, stock_known,
              waiting, units_wanted, signups_7d, signups_30d, (price * units_wanted)::text as demand_value,
              conversion_rate::text, conversion_rate_source, trend::text, expected_sales::text, unmet_sales::text,
              (unmet_sales * price * trend)::text as score
       from scored
       where unmet_sales * price * trend > 0
       order by unmet_sales * price * trend desc, waiting desc, variant_id
       limit ${limit}`,
      where.params,
    );
    return {
      generated_at: new Date().toISOString(),
      scoring: SCORING,
      recommendations: rows.map((row, i) => ({
        rank: i + 1,
        variant_id: row.variant_id,
        product_id: row.product_id,
        product_title: row.product_title,
        variant_title: row.variant_title,
        sku: row.sku,
        price: round(row.price, 2),
        available: row.stock_known ? row.available : null,
        waiting: row.waiting,
        units_wanted: row.units_wanted,
        signups_7d: row.signups_7d,
        signups_30d: row.signups_30d,
        trend: round(row.trend, 2),
        demand_value: round(row.demand_value, 2),
        conversion_rate: round(row.conversion_rate, 4),
        conversion_rate_source: row.conversion_rate_source,
        expected_sales: round(row.expected_sales, 2),
        unmet_sales: round(row.unmet_sales, 2),
        expected_revenue: round(Number(row.expected_sales) * Number(row.price), 2),
        score: round(row.score, 2),
        reason: reason(row),
      })),
    };
  },
});
