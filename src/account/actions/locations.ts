import { z } from "zod";
import { defineAction } from "../../core/action.ts";

export const listLocations = defineAction({
  name: "account.locations.list",
  method: "GET",
  path: "/account/locations",
  description: "The store's locations (id, name, active), as mirrored from the store platform.",
  notes: ["Inactive locations are listed too (active false); the list is ordered by name."],
  aliases: ["list the store locations", "which warehouses does the store have"],
  output: z.strictObject({
    locations: z.array(
      z.strictObject({
        id: z.string().describe("the platform's location id (gid)"),
        name: z.string(),
        active: z.boolean(),
      }),
    ),
  }),
  kind: "read",
  input: z.strictObject({}),
  async handler(ctx) {
    const { rows } = await ctx.db.query<{ id: string; name: string; active: boolean }>(
      "select id, name, active from locations where shop_id = $1 order by name, id",
      [ctx.shopId],
    );
    return { locations: rows };
  },
});
