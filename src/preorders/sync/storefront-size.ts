import type { Db } from "../../core/db.ts";
import { type Issue, fieldIssue } from "../../core/errors.ts";
import { JSON_METAFIELD_MAX_BYTES } from "../../platform/operations/metafields.ts";
import { paymentsGroup } from "../offers/groups/plan-groups.ts";
import type { OfferState } from "../offers/model.ts";
import { storefrontConfig } from "./storefront-config.ts";

/**
 * An offer's settings must fit the json metafield its storefront configuration is written to
 * (storefront-config.ts, the platform's limit): refused when they are saved, with the field that
 * weighs most, instead of accepted and then failing at every sync (an offer configuration of
 * 952,838 bytes answered 202, issue 31). The configuration is measured as the sync writes it,
 * with a selling plan id of the longest form for each enabled payment option, and the longest
 * shipping text a variant of the offer has of its own (its variants' values carry it instead).
 */

/** The longest id the platform gives a selling plan (a 64-bit number). */
const LONGEST_PLAN_ID = `gid://shopify/SellingPlan/${"9".repeat(19)}`;

/** Where a part of the configuration is set, when not under the same path (storefront-config.ts). */
const SOURCE_OF: readonly [RegExp, string][] = [
  [/^custom_css$/, "advanced.custom_css"],
  [/^widget\.button_text_overrides\b/, "advanced.button_text_overrides"],
];

export async function offerStorefrontSize(db: Db, offer: OfferState): Promise<Issue[]> {
  const plans = offer
    .get(paymentsGroup)
    .options.filter((o) => o.enabled)
    .map((o) => ({ id: LONGEST_PLAN_ID, option: o.type }));
  const config = storefrontConfig(offer, offer.row, plans);
  const { rows } = await db.query<{ longest: number }>(
    "select coalesce(max(octet_length(shipping_text)), 0)::int as longest from preorder_offer_variant_overrides where offer_id = $1",
    [offer.row.id],
  );
  const bytes = Buffer.byteLength(JSON.stringify(config), "utf8") + (rows[0]?.longest ?? 0);
  if (bytes <= JSON_METAFIELD_MAX_BYTES) return [];
  return [
    fieldIssue(
      heaviestField(config),
      `makes the offer's storefront configuration ${bytes} bytes; the store platform keeps at most ${JSON_METAFIELD_MAX_BYTES} bytes in a json metafield`,
    ),
  ];
}

/** The settings field of the longest text in the configuration (for translations, the locale's key). */
function heaviestField(config: Record<string, unknown>): string {
  let heaviest = { path: "", bytes: -1 };
  const walk = (value: unknown, path: string[]): void => {
    if (typeof value === "string") {
      const bytes = Buffer.byteLength(value, "utf8");
      if (bytes > heaviest.bytes) heaviest = { path: path.join("."), bytes };
    } else if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...path, String(i)]));
    else if (typeof value === "object" && value !== null) for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
  };
  walk(config, []);
  for (const [pattern, source] of SOURCE_OF) if (pattern.test(heaviest.path)) return heaviest.path.replace(pattern, source);
  return heaviest.path;
}
