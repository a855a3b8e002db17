import { z } from "zod";
import { defineAction } from "../../core/action.ts";
import { queryBoolean } from "../../core/schemas.ts";

interface MarketRow {
  id: string;
  name: string;
  active: boolean;
  primary: boolean;
  countries: string[];
  location_ids: string[];
}

export const listMarkets = defineAction({
  name: "account.markets.list",
  method: "GET",
  path: "/account/markets",
  description:
    "The store's markets: only active ones unless include_inactive=true; whether the store sells to multiple markets; each market's countries and location_ids (the store locations linked to it).",
  notes: [
    "multiple_markets counts active markets only, also with include_inactive=true.",
    "The primary market comes first, then by name.",
  ],
  aliases: ["list the store markets", "which countries does the store sell to"],
  output: z.strictObject({
    multiple_markets: z.boolean().describe("true when more than one market is active"),
    markets: z.array(
      z.strictObject({
        id: z.string().describe("the platform's market id (gid); offers restricted to markets use it"),
        name: z.string(),
        active: z.boolean(),
        primary: z.boolean(),
        countries: z.array(z.string()).describe("country codes of the market"),
        location_ids: z.array(z.string()).describe("ids of the store locations linked to the market"),
      }),
    ),
  }),
  kind: "read",
  input: z.strictObject({ include_inactive: queryBoolean.optional() }),
  async handler(ctx, { input }) {
    const { rows } = await ctx.db.query<MarketRow & { active_count: number }>(
      `select id, name, active, is_primary as primary, countries, location_ids,
              (count(*) filter (where active) over ())::int as active_count
       from markets where shop_id = $1 and (active or $2)
       order by is_primary desc, name, id`,
      [ctx.shopId, input.include_inactive ?? false],
    );
    const activeCount = rows[0]?.active_count ?? 0;
    return {
      multiple_markets: activeCount > 1,
      markets: rows.map(({ active_count: _count, ...market }) => market),
    };
  },
});
