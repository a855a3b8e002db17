import { type Issue, fieldIssue } from "../../../core/errors.ts";
import { z } from "zod";
import { isPlainObject } from "../../../core/deep-partial.ts";
import { defineGroup } from "../model.ts";
import { marketsOutput } from "../outputs.ts";

/** Where the offer applies: everywhere (enabled false), in every market, or in the markets listed. */
const marketsSchema = z.strictObject({
  enabled: z.boolean().default(false),
  applies_to_all_markets: z.boolean().default(true),
  market_ids: z.array(z.string().min(1).max(255)).max(250).default(() => []),
});

function sentIds(patch: unknown): string[] | undefined {
  if (!isPlainObject(patch) || !Array.isArray(patch.market_ids)) return undefined;
  return patch.market_ids.filter((id): id is string => typeof id === "string");
}

export const marketsGroup = defineGroup({
  key: "markets",
  schema: marketsSchema,
  output: marketsOutput,
  normalize(next, patch) {
    next.market_ids = [...new Set(next.market_ids)];
    if (next.applies_to_all_markets && next.market_ids.length > 0) {
      // Ids sent with applies_to_all_markets contradict it; stored ones are simply dropped.
      if ((sentIds(patch)?.length ?? 0) > 0) return [fieldIssue("market_ids", "must be empty when applies_to_all_markets is true")];
      next.market_ids = [];
    }
    return [];
  },
  async rules(value, { db, shopId, patch }) {
    const violations: Issue[] = [];
    if (value.enabled && !value.applies_to_all_markets && value.market_ids.length === 0) {
      violations.push(fieldIssue("market_ids", "is required when enabled is true and applies_to_all_markets is false"));
    }
    // Ids the request names must be markets of the shop (as mirrored); stored ones are not re-checked.
    const sent = sentIds(patch);
    if (sent && sent.length > 0) {
      const { rows } = await db.query<{ id: string }>("select id from markets where shop_id = $1 and id = any($2::text[])", [shopId, sent]);
      const known = new Set(rows.map((r) => r.id));
      value.market_ids.forEach((id, index) => {
        if (sent.includes(id) && !known.has(id)) violations.push(fieldIssue(`market_ids.${index}`, `must be a market of this shop (unknown id ${id})`));
      });
    }
    return violations;
  },
});
