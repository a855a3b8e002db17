import { PREORDER_OFFER_PROPERTY } from "../../../storefront/line-properties.ts";
import type { Context } from "../context.ts";
import type { Location } from "../model.ts";
import { variantAppMetafields } from "../storefront/app-data.ts";
import { type OfferRules, offerOfLine } from "../storefront/validation.ts";

/**
 * The app's POS UI extension as the point of sale runs it before checkout (decision 0213). The
 * platform runs no Cart and Checkout Validation Function at its point of sale, so the app's checks
 * there are a POS UI extension's: an interceptor registered with `shopify.intercept('cartvalidations',
 * …)` on the `pos.app.ready.data` target, whose result is operations such as
 * `{ validationAdd: { level: 'ERROR', handle, target } }`; the POS shows them to staff (the
 * extension's resolution target, `pos.cart.validations.resolution.render`, says what to do) and
 * does not check out while an ERROR stands. Its input is the POS cart (lines with their selling
 * plan and properties, the POS's location) and the app's metafields on the lines' variants, where
 * the service writes each offer's configuration with its `integrations.pos` (decision 0196).
 *
 * What it checks, for a preorder line only (a line on an offer's selling plan, or naming an offer
 * sold without one in its `_preorder_offer` property, decision 0209):
 * - `integrations.pos.enabled` false: the line is refused (`preorder-pos-disabled`);
 * - otherwise, unless `integrations.pos.skip_inventory_check`: a tracked variant's units in the
 *   cart (all its lines: they draw on the same shelf) must not exceed what the POS's location has
 *   available (`preorder-pos-inventory`). The variant's inventory policy plays no part: the platform's
 *   point of sale does not apply "continue selling when out of stock"; this switch is the app's.
 * Other lines are the platform's: it sells them whatever its stock (staff sell what they hold).
 */

export interface PosCartLine {
  variantId: number;
  quantity: number;
  sellingPlanId: number | null;
  properties: Record<string, string>;
}

/** An ERROR finding: the operation `validationAdd` of the interceptor's result, with the text its resolution target shows staff. */
export interface PosValidation {
  level: "ERROR";
  handle: "preorder-pos-disabled" | "preorder-pos-inventory";
  /** The line: `$.cart.lineItems[i]`. */
  target: string;
  message: string;
}

/** The offer a line belongs to: by its selling plan, or by the offer it names when sold without one. */
function offerOf(ctx: Context, line: PosCartLine): OfferRules | undefined {
  if (line.sellingPlanId !== null) return offerOfLine(ctx, line.variantId, line.sellingPlanId);
  const named = line.properties[PREORDER_OFFER_PROPERTY];
  const variant = ctx.store.variant(line.variantId);
  if (named === undefined || !variant) return undefined;
  const offer = variantAppMetafields(ctx, variant)[`offer-${named}`];
  return offer !== null && typeof offer === "object" && (offer as OfferRules).selling_plan_id === null ? (offer as OfferRules) : undefined;
}

export function posCartValidations(ctx: Context, lines: readonly PosCartLine[], location: Location): PosValidation[] {
  const { store } = ctx;
  const findings: PosValidation[] = [];
  const title = (variantId: number) => {
    const variant = store.variant(variantId);
    return variant ? `${store.productOf(variant).title} - ${variant.title}` : String(variantId);
  };
  const checked = new Set<number>();
  lines.forEach((line, index) => {
    const offer = offerOf(ctx, line);
    if (!offer) return;
    const pos = offer.integrations?.pos;
    const target = `$.cart.lineItems[${index}]`;
    if (pos?.enabled !== true) {
      findings.push({ level: "ERROR", handle: "preorder-pos-disabled", target, message: `${title(line.variantId)} cannot be preordered at the point of sale.` });
      return;
    }
    if (pos.skip_inventory_check === true || checked.has(line.variantId)) return;
    checked.add(line.variantId);
    const variant = store.variant(line.variantId);
    if (!variant?.tracked) return;
    const available = location.levels?.available[store.variantIndex(variant)] ?? 0;
    const units = lines.filter((l) => l.variantId === line.variantId).reduce((n, l) => n + l.quantity, 0);
    if (units <= available) return;
    const message =
      available <= 0
        ? `${title(line.variantId)} is out of stock at ${location.name}.`
        : `Only ${available} of ${title(line.variantId)} in stock at ${location.name}.`;
    findings.push({ level: "ERROR", handle: "preorder-pos-inventory", target, message });
  });
  return findings;
}
