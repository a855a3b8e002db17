import { z } from "zod";
import { defineAction } from "../../core/action.ts";

export const listLocations = defineAction({
  name: "account.locations.list",
  method: "GET",
  path: "/account/locations",
  description: "The store's locations (id, name, active), as mirrored from the store platform.",
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
