import { z } from "zod";
import { assertCatalogMirrored } from "../../../catalog/readiness.ts";
import { type ActionContext, defineAction } from "../../../core/action.ts";
import { platformId, queryList } from "../../../core/params.ts";
import { type VariantInventory, getInventoryLevels } from "../../../platform/operations/inventory.ts";
import { advancedGroup } from "../../offers/groups/plan-groups.ts";
import { inventoryGroup } from "../../offers/groups/inventory.ts";
import { limitsGroup } from "../../offers/groups/limits.ts";
import { marketsGroup } from "../../offers/groups/markets.ts";
import { OFFER_COLUMNS, OFFER_STATUSES, type OfferRow, OfferState } from "../../offers/model.ts";

/**
 * GET /preorders/products/inventory_status: live inventory of up to 250 variants from the platform
 * and, for every offer that applies to each (or could: all and collection offers, and the offer
 * named by offer_id), whether its preorder button may show and, if not, why.
 *
 * The rule (docs/decisions/0035-offer-variants-and-inventory-status.md): the preorder button shows for a variant of an active offer, in
 * the offer, in the shopper's market, while the variant is out of stock (tracked, nothing
 * available at the active locations), the offer's total limit is not reached, the variant can be
 * sold past zero (continue_selling on, or the platform's own policy CONTINUE), and the offer's
 * selling plan group exists on the platform when the offer uses one. While stock remains, the
 * store's regular add-to-cart button shows instead: `in_stock` is a reason like the others.
 */

const INVENTORY_STATUS_MAX_VARIANTS = 250;

/** `variant_ids=1,2,3`, `variant_ids=1&variant_ids=2`, or both: numeric ids or gids. */
const variantIdsParam = queryList(platformId("ProductVariant"), { min: 1, max: INVENTORY_STATUS_MAX_VARIANTS });

interface Reason {
  code: string;
  message: string;
}

interface MirrorVariant {
  id: string;
  legacy_id: string;
  title: string;
  inventory_policy: string;
  inventory_item_id: string;
  product_title: string | null;
  tags: string[] | null;
  collection_ids: string[] | null;
}

interface CandidateOffer extends OfferRow {
  members: string[];
}

interface LocationRow {
  id: string;
  name: string;
  active: boolean;
}

interface Stock {
  tracked: boolean;
  available: number;
  locations: { location_id: string; name: string | null; available: number; active: boolean }[];
}

const legacyOf = (gid: string): number => Number(gid.slice(gid.lastIndexOf("/") + 1));

async function shopConnected(ctx: ActionContext): Promise<boolean> {
  const { rows } = await ctx.db.query<{ connected: boolean }>(
    "select platform_graphql_url is not null and platform_access_token is not null as connected from shops where id = $1",
    [ctx.shopId],
  );
  return rows[0]?.connected ?? false;
}

/** Live levels from the platform; undefined (with a warning) when the shop is not connected or the call failed. */
async function liveInventory(ctx: ActionContext, gids: string[], warnings: string[]): Promise<Map<string, VariantInventory> | undefined> {
  if (!(await shopConnected(ctx))) {
    warnings.push("the shop is not connected to the store platform: quantities are from the catalog mirror");
    return undefined;
  }
  try {
    const runtime = await ctx.services.platform();
    const client = await runtime.clientFor(ctx.pool, ctx.shopId);
    const levels = await getInventoryLevels(client, gids);
    return new Map(levels.map((v) => [v.variantId, v]));
  } catch (error) {
    ctx.log.warn({ err: error }, "live inventory read failed; answering from the mirror");
    warnings.push(`live inventory could not be read (${error instanceof Error ? error.message : String(error)}): quantities are from the catalog mirror`);
    return undefined;
  }
}

async function mirrorInventory(ctx: ActionContext, gids: string[]): Promise<Map<string, VariantInventory>> {
  const { rows } = await ctx.db.query<{ variant_id: string; inventory_item_id: string; location_id: string | null; available: number | null }>(
    `select v.id as variant_id, v.inventory_item_id, l.location_id, l.available
     from variants v left join inventory_levels l on l.shop_id = v.shop_id and l.inventory_item_id = v.inventory_item_id
     where v.shop_id = $1 and v.id = any($2::text[])`,
    [ctx.shopId, gids],
  );
  const byVariant = new Map<string, VariantInventory>();
  for (const row of rows) {
    let entry = byVariant.get(row.variant_id);
    if (!entry) {
      // The mirror does not know whether an item is tracked: taken as tracked.
      entry = { variantId: row.variant_id, inventoryItemId: row.inventory_item_id, tracked: true, levels: [] };
      byVariant.set(row.variant_id, entry);
    }
    if (row.location_id !== null) entry.levels.push({ locationId: row.location_id, locationName: "", available: row.available ?? 0 });
  }
  return byVariant;
}

function stockOf(inventory: VariantInventory | undefined, locations: Map<string, LocationRow>): Stock | undefined {
  if (!inventory) return undefined;
  const levels = inventory.levels.map((level) => {
    const known = locations.get(level.locationId);
    return { location_id: level.locationId, name: level.locationName || known?.name || null, available: level.available, active: known?.active ?? true };
  });
  const available = levels.filter((l) => l.active).reduce((sum, l) => sum + l.available, 0);
  return { tracked: inventory.tracked, available, locations: levels };
}

/** Why a variant outside an all or collection offer is outside it. */
function outsideReason(offer: CandidateOffer, variant: MirrorVariant | undefined, gid: string): string {
  if (offer.products_source === "custom") return "the variant is not among the offer's variants (custom source)";
  if (!variant) return "the variant is not in the catalog mirror yet; the next catalog sync and resolution add it";
  if (offer.products_excluded_variant_ids.some((id) => id === gid || id === variant.legacy_id)) return "the variant is in the offer's excluded_variant_ids";
  if (offer.products_exclusion_tag !== null && (variant.tags ?? []).includes(offer.products_exclusion_tag)) {
    return `its product carries the offer's exclusion_tag ${offer.products_exclusion_tag}`;
  }
  if (offer.products_source === "collection" && !(variant.collection_ids ?? []).includes(offer.products_collection_id ?? "")) {
    return `its product is not in the offer's collection ${offer.products_collection_id ?? "(none)"}`;
  }
  return "the offer's variants were resolved before this variant was in the catalog: set_source_to_all again, or turn on inventory.continue_selling.auto_apply_to_new_variants";
}

/** The diagnosis of one offer for one variant. */
function diagnose(
  offer: CandidateOffer,
  gid: string,
  variant: MirrorVariant | undefined,
  stock: Stock | undefined,
  marketId: string | undefined,
): { reasons: Reason[]; notes: Reason[] } {
  const state = new OfferState(offer);
  const reasons: Reason[] = [];
  const notes: Reason[] = [];
  if (offer.status === "draft") {
    reasons.push({ code: "offer_draft", message: "the offer is a draft: enable it (POST /preorders/offers/{id}/enable), which also puts its selling plan group on the platform" });
  }
  if (offer.status === "disabled") reasons.push({ code: "offer_disabled", message: "the offer is disabled: enable it (POST /preorders/offers/{id}/enable)" });
  if (!offer.members.includes(gid)) reasons.push({ code: "variant_not_in_offer", message: outsideReason(offer, variant, gid) });

  const markets = state.get(marketsGroup);
  if (markets.enabled && !markets.applies_to_all_markets) {
    if (marketId !== undefined && !markets.market_ids.includes(marketId)) {
      reasons.push({ code: "market_excluded", message: `the offer applies only in markets ${markets.market_ids.join(", ")}, not in ${marketId}` });
    } else if (marketId === undefined) {
      notes.push({ code: "markets_restricted", message: `the button shows only in markets ${markets.market_ids.join(", ")} (pass market_id to check one)` });
    }
  }

  // inventory.provider app: the service's count (limits.total) is the offer's stock, so the
  // preorder button shows whatever the platform holds; platform: it waits for the platform's
  // stock to sell out (decision 0205).
  const appCounts = state.get(inventoryGroup).provider === "app";
  if (!stock) {
    reasons.push({ code: "variant_not_found", message: "neither the platform nor the catalog mirror knows this variant" });
  } else if (appCounts) {
    if (stock.tracked && stock.available > 0) {
      notes.push({ code: "app_inventory", message: `inventory.provider is app: the preorder button shows although ${stock.available} are available on the platform; limits.total is the offer's stock` });
    }
  } else if (!stock.tracked) {
    reasons.push({ code: "in_stock", message: "the variant's inventory is not tracked: it is always sellable, and the regular add-to-cart button shows" });
  } else if (stock.available > 0) {
    reasons.push({ code: "in_stock", message: `${stock.available} available at active locations: the regular add-to-cart button shows until it sells out` });
  } else {
    const continueSelling = state.get(inventoryGroup).continue_selling.enabled;
    const policy = variant?.inventory_policy;
    if (!continueSelling && policy !== "CONTINUE") {
      reasons.push({ code: "continue_selling_off", message: "out of stock, inventory.continue_selling is off and the variant's inventory policy is not CONTINUE: it cannot be sold" });
    } else if (continueSelling && policy === "DENY") {
      notes.push({ code: "inventory_policy_deny", message: "the variant's inventory policy on the platform is DENY: selling past zero relies on the offer's continue_selling" });
    }
  }

  const total = state.get(limitsGroup).total.max;
  if (total !== null && offer.current_count >= total) {
    reasons.push({ code: "total_limit_reached", message: `limits.total.max is ${total} and ${offer.current_count} units are preordered` });
  }

  // A draft is kept off the platform until it is enabled, and a disabled offer holds no variants
  // there (decision 0210): offer_draft and offer_disabled already say so.
  if (state.get(advancedGroup).use_platform_selling_plan && offer.status === "active") {
    const error = offer.sync_last_error ? `: ${offer.sync_last_error}` : "";
    if (offer.platform_selling_plan_group_id === null) {
      reasons.push({ code: "selling_plan_not_synced", message: `the offer's selling plan group is not on the platform yet (sync ${offer.sync_status}${error})` });
    } else if (offer.sync_status !== "synced") {
      notes.push({ code: `sync_${offer.sync_status}`, message: `the offer's latest change is not on the platform yet (sync ${offer.sync_status}${error})` });
    }
  }
  return { reasons, notes };
}

const reasonOutput = z.strictObject({ code: z.string(), message: z.string() });

const inventoryStatusOutput = z.strictObject({
  inventory_source: z.enum(["platform", "mirror"]).describe("where the quantities come from"),
  warnings: z.array(z.string()),
  variants: z.array(
    z.strictObject({
      variant_id: z.number(),
      gid: z.string(),
      title: z.string().nullable(),
      product_title: z.string().nullable(),
      found: z.boolean(),
      tracked: z.boolean().nullable(),
      inventory_policy: z.string().nullable(),
      available: z.int().nullable().describe("sum over active locations"),
      locations: z.array(z.strictObject({ location_id: z.string(), name: z.string().nullable(), available: z.int(), active: z.boolean() })),
      offers: z.array(
        z.strictObject({
          offer_id: z.uuid(),
          name: z.string(),
          status: z.enum(OFFER_STATUSES),
          preorder_button: z.boolean().describe("true when no reason blocks the button"),
          reasons: z.array(reasonOutput),
          notes: z.array(reasonOutput),
        }),
      ),
    }),
  ),
});

export const inventoryStatus = defineAction({
  name: "preorders.products.inventory_status",
  method: "GET",
  path: "/preorders/products/inventory_status",
  description: `Live inventory of variants and whether each offer's preorder button may show for them. Query: variant_ids (required; numeric ids or gids, comma-separated or repeated, at most ${INVENTORY_STATUS_MAX_VARIANTS}), market_id (optional: check the offers' markets for that market), offer_id (optional: also diagnose that offer when it does not apply to a variant). Makes a live platform call and may be slow; without a platform connection, or when the call fails, quantities come from the catalog mirror (inventory_source mirror, with a warning). Answers { inventory_source, warnings, variants: [{ variant_id, gid, title, product_title, found, tracked, inventory_policy, available (sum over active locations), locations: [{ location_id, name, available, active }], offers: [{ offer_id, name, status, preorder_button, reasons: [{ code, message }], notes: [{ code, message }] }] }] }. The offers listed for a variant are those containing it, every all or collection offer, and offer_id. Reason codes: offer_draft, offer_disabled, variant_not_in_offer, market_excluded, in_stock (the regular add-to-cart button shows while stock remains; never with inventory.provider app), variant_not_found, continue_selling_off, total_limit_reached, selling_plan_not_synced; preorder_button is true when there is none. Notes do not block: markets_restricted, inventory_policy_deny, app_inventory (inventory.provider app: the platform's stock does not hold the button back), sync_pending, sync_failed.`,
  aliases: ["why is the preorder button not showing", "check live inventory of variants", "diagnose preorder button visibility"],
  notes: [
    "Makes a live platform call and may be slow; without one it answers from the catalog mirror with a warning.",
    "preorder_button is true when no reason blocks it; notes never block.",
  ],
  output: inventoryStatusOutput,
  kind: "read",
  input: z.strictObject({
    variant_ids: variantIdsParam,
    market_id: z.string().min(1).max(255).optional(),
    offer_id: z.uuid().optional(),
  }),
  async handler(ctx, { input }) {
    const gids = [...new Set(input.variant_ids)];
    const warnings: string[] = [];
    const { rows: mirror } = await ctx.db.query<MirrorVariant>(
      `select v.id, v.legacy_id::text, v.title, v.inventory_policy, v.inventory_item_id, p.title as product_title, p.tags, p.collection_ids
       from variants v left join products p on p.shop_id = v.shop_id and p.id = v.product_id
       where v.shop_id = $1 and v.id = any($2::text[])`,
      [ctx.shopId, gids],
    );
    const variants = new Map(mirror.map((v) => [v.id, v]));
    // Diagnoses lean on the mirror (tags, collections, policy): none is given for a variant it may just not have yet.
    if (variants.size < gids.length) await assertCatalogMirrored(ctx.db, ctx.shopId);
    const { rows: locationRows } = await ctx.db.query<LocationRow>("select id, name, active from locations where shop_id = $1", [ctx.shopId]);
    const locations = new Map(locationRows.map((l) => [l.id, l]));
    const live = await liveInventory(ctx, gids, warnings);
    const inventory = live ?? (await mirrorInventory(ctx, gids));
    const { rows: offers } = await ctx.db.query<CandidateOffer>(
      `select ${OFFER_COLUMNS},
              array(select m.variant_id from preorder_offer_variants m where m.offer_id = o.id and m.variant_id = any($2::text[])) as members
       from preorder_offers o
       where o.shop_id = $1 and o.deleted_at is null
         and (o.products_source <> 'custom' or o.id = $3::uuid
              or exists (select 1 from preorder_offer_variants m where m.offer_id = o.id and m.shop_id = $1 and m.variant_id = any($2::text[])))
       order by o.created_at, o.id`,
      [ctx.shopId, gids, input.offer_id ?? null],
    );
    return {
      inventory_source: live ? "platform" : "mirror",
      warnings,
      variants: gids.map((gid) => {
        const variant = variants.get(gid);
        const stock = stockOf(inventory.get(gid), locations);
        const applicable = offers.filter((o) => o.members.includes(gid) || o.products_source !== "custom" || o.id === input.offer_id);
        return {
          variant_id: legacyOf(gid),
          gid,
          title: variant?.title ?? null,
          product_title: variant?.product_title ?? null,
          found: stock !== undefined || variant !== undefined,
          tracked: stock?.tracked ?? null,
          inventory_policy: variant?.inventory_policy ?? null,
          available: stock?.available ?? null,
          locations: stock?.locations ?? [],
          offers: applicable.map((offer) => {
            const { reasons, notes } = diagnose(offer, gid, variant, stock, input.market_id);
            return { offer_id: offer.id, name: offer.name, status: offer.status, preorder_button: reasons.length === 0, reasons, notes };
          }),
        };
      }),
    };
  },
});
