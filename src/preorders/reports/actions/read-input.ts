import { z } from "zod";
import type { ActionContext } from "../../../core/action.ts";
import type { Db } from "../../../core/db.ts";
import { invalidField } from "../../../core/errors.ts";
import { cursorPart, bodyPagingParams, pageOrCursor, pagingParams } from "../../../core/paging.ts";
import { platformGid, platformId, queryList } from "../../../core/params.ts";
import { dateOrTimestamp, withPeriodOrder } from "../../../core/period.ts";
import { ISO_4217, offerId } from "../../params.ts";
import type { ReportBody } from "../query.ts";
import { BY_DATE_GRANULARITIES } from "../views.ts";

/**
 * What the JSON report reads take (their query) and what their CSV exports take (a JSON body):
 * one definition of both, field for field in the same order with the same rules, so a body the
 * read would refuse is refused by its export with the same messages. The differences are JSON's
 * types only: offer_ids an array (the query's comma-separated list), page and per_page integers.
 */

export async function checkMarket(db: Db, shopId: string, marketId: string): Promise<void> {
  const { rowCount } = await db.query("select 1 from markets where shop_id = $1 and id = $2", [shopId, platformGid("Market", marketId)]);
  if ((rowCount ?? 0) === 0) throw invalidField("market_id", "must be one of the shop's markets");
}

function filterFields(transport: "query" | "body") {
  return {
    from: dateOrTimestamp.optional(),
    to: dateOrTimestamp.optional(),
    offer_id: offerId.optional(),
    offer_ids: (transport === "query" ? queryList(offerId, { min: 1, max: 100 }) : z.array(offerId).min(1).max(100)).optional(),
    product_id: platformId("Product").optional(),
    variant_id: platformId("ProductVariant").optional(),
    market_id: z.string().min(1).max(200).optional(),
    currency: ISO_4217.optional(),
  };
}

export type FilterInput = { [K in keyof ReturnType<typeof filterFields>]?: z.output<ReturnType<typeof filterFields>[K]> | undefined };

/** The sort key a grouped read's cursor carries. */
const cursorKey = z.tuple([cursorPart.text, cursorPart.text]);

/** A grouped read's paging: per_page and page or cursor, in its query or its export's body. */
export const READ_PAGING = { query: pagingParams(cursorKey), body: bodyPagingParams(cursorKey) };

/** by_date's own field. */
export const BY_DATE_FIELDS = { granularity: z.enum(BY_DATE_GRANULARITIES).optional() };

/**
 * A report read's input: its filters, its own fields (`extra`: by_date's granularity) and its
 * paging (READ_PAGING; none for the summary); as a query (the read) or a JSON body (its export).
 */
export function readInput<E extends z.ZodRawShape, P extends z.ZodRawShape>(transport: "query" | "body", extra: E, paging: P) {
  return withPeriodOrder(z.strictObject({ ...filterFields(transport), ...extra, ...paging })).superRefine((value, ctx) => {
    pageOrCursor(value as { page?: unknown; cursor?: unknown }, ctx);
  });
}

/** The read's filters as a report body (granularity and metrics do not apply to the filters); an unknown market is 422. */
export async function reportFilters(ctx: ActionContext, input: FilterInput): Promise<ReportBody> {
  if (input.market_id) await checkMarket(ctx.db, ctx.shopId, input.market_id);
  const body: ReportBody = { granularity: "none", include_deposits: true, include_balances: true };
  for (const key of Object.keys(filterFields("query")) as (keyof FilterInput)[]) {
    const value = input[key];
    if (value !== undefined) Object.assign(body, { [key]: value });
  }
  return body;
}
