import type { Context } from "../context.ts";
import { gid } from "../ids.ts";
import { customerAppMetafield, shopAppMetafield, variantAppMetafields } from "./app-data.ts";
import type { Cart } from "./cart.ts";

/**
 * The app's cart and checkout validation, run at checkout as the platform runs an app's Cart and
 * Checkout Validation Function (`purchase.validation.run`, answering `FunctionRunResult { errors:
 * [FunctionError { localizedMessage, target }] }`): its input is what the function's input query
 * asks of the cart, the buyer and the shop, here
 *
 *     cart {
 *       buyerIdentity { isAuthenticated purchasingCompany { company { id } }
 *         customer { id metafield(namespace: "$app:preorder", key: "units") { jsonValue } } }
 *       lines { quantity sellingPlanAllocation { sellingPlan { id } }
 *         merchandise { ... on ProductVariant { id metafield(namespace: "$app:preorder", key: "offer-…") { jsonValue } } } }
 *     }
 *     shop { metafield(namespace: "$app:preorder", key: "remaining") { jsonValue } }
 *
 * (the lines' variants carry the offer configuration the service wrote, decision 0196; the shop and
 * the signed-in customer carry the limit counters it keeps, decision 0211; the market comes with
 * the checkout). Its errors are shown and stop the checkout. The rules: per-order min and max (a
 * variant's own max count is its per_order.max in its metafield, decision 0203), the offer's
 * remaining units under total.max (the shop's counter; without one yet, total.max itself), the
 * customer's units under per_customer.max (their counter plus the cart; a guest's cart alone), the
 * mixed-cart rule, the offer's markets and its B2B switch. The counters lag the orders by the job
 * that writes them: two checkouts racing for the last units can both pass, and a guest's past
 * orders are not known; the service still flags those at order ingest (decision 0197).
 */
export interface ValidationError {
  localizedMessage: string;
  /** `$.cart`, or the line: `$.cart.lines[i].quantity` */
  target: string;
}

export interface CheckoutBuyer {
  /** The market the checkout is in (its id); null: the primary market. */
  marketId: number | null;
  /** A B2B buyer (a company location): the buyer identity's purchasingCompany. */
  purchasingCompany: boolean;
  /** The signed-in customer (buyerIdentity.customer, given when isAuthenticated); null: a guest. */
  customerId?: number | null;
}

/** The shop's counter of units left per offer, and a customer's units per offer (decision 0211). */
export const REMAINING_KEY = "remaining";
export const CUSTOMER_UNITS_KEY = "units";

export interface OfferRules {
  offer_id: string;
  selling_plan_id: string | null;
  name?: string;
  /** each payment option's own plan (decision 0212) */
  payments?: { options?: { selling_plan_id?: string | null }[] };
  limits?: { per_order?: { min?: number; max?: number | null }; per_customer?: { max?: number | null }; total?: { max?: number | null } };
  checkout?: { mixed_cart?: { allowed?: boolean; error_message?: string } };
  markets?: { enabled?: boolean; applies_to_all_markets?: boolean; market_ids?: string[] };
  integrations?: { pos?: { enabled?: boolean; skip_inventory_check?: boolean }; b2b?: { enabled?: boolean } };
}

/** The offer whose selling plan the line is on, from the variant's app metafields (`offer-<id>` with that selling_plan_id). */
export function offerOfLine(ctx: Context, variantId: number, sellingPlanId: number): OfferRules | undefined {
  const variant = ctx.store.variant(variantId);
  if (!variant) return undefined;
  const planGid = gid("SellingPlan", sellingPlanId);
  for (const [key, value] of Object.entries(variantAppMetafields(ctx, variant))) {
    if (!key.startsWith("offer-") || value === null || typeof value !== "object") continue;
    const offer = value as OfferRules;
    // Any of the offer's plans (one per payment option) is the offer's line.
    if (offer.selling_plan_id === planGid || (offer.payments?.options ?? []).some((o) => o.selling_plan_id === planGid)) return offer;
  }
  return undefined;
}

/** A json counter `{ offer id: units }` as read from a metafield; {} when absent or malformed. */
function counter(value: unknown): Record<string, number> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).filter((entry): entry is [string, number] => Number.isInteger(entry[1])));
}

const units = (n: number) => (n === 1 ? "1 unit" : `${n} units`);

function lastSegment(id: string): string {
  return id.split("/").pop() ?? id;
}

export function validateCart(ctx: Context, cart: Cart, buyer: CheckoutBuyer): ValidationError[] {
  const errors: ValidationError[] = [];
  const title = (variantId: number) => {
    const variant = ctx.store.variant(variantId);
    return variant ? `${ctx.store.productOf(variant).title} - ${variant.title}` : String(variantId);
  };
  const market = buyer.marketId ?? ctx.store.markets.find((m) => m.primary)?.id ?? null;
  const hasPlainLine = cart.lines.some((l) => l.sellingPlanId === null);
  // Units per (offer, variant), as the offer's per-order limit counts them; and per offer, as its
  // per-customer and total limits count them (the offer's last line in the cart is the target).
  const perVariant = new Map<string, { offer: OfferRules; variantId: number; quantity: number; line: number }>();
  const perOffer = new Map<string, { offer: OfferRules; variantId: number; quantity: number; line: number }>();
  const mixedMessages = new Set<string>();
  cart.lines.forEach((line, index) => {
    if (line.sellingPlanId === null) return;
    const offer = offerOfLine(ctx, line.variantId, line.sellingPlanId);
    if (!offer) return;
    const key = `${offer.offer_id}:${line.variantId}`;
    const entry = perVariant.get(key) ?? { offer, variantId: line.variantId, quantity: 0, line: index };
    entry.quantity += line.quantity;
    perVariant.set(key, entry);
    const ofOffer = perOffer.get(offer.offer_id) ?? { offer, variantId: line.variantId, quantity: 0, line: index };
    perOffer.set(offer.offer_id, { ...ofOffer, variantId: line.variantId, quantity: ofOffer.quantity + line.quantity, line: index });
    const markets = offer.markets;
    if (markets?.enabled && !markets.applies_to_all_markets && !(markets.market_ids ?? []).some((id) => market !== null && lastSegment(id) === String(market))) {
      errors.push({ localizedMessage: `${title(line.variantId)} cannot be preordered in your market.`, target: `$.cart.lines[${index}]` });
    }
    if (buyer.purchasingCompany && !offer.integrations?.b2b?.enabled) {
      errors.push({ localizedMessage: `${title(line.variantId)} cannot be preordered on a business account.`, target: `$.cart.lines[${index}]` });
    }
    if (offer.checkout?.mixed_cart?.allowed === false && hasPlainLine) {
      mixedMessages.add(offer.checkout.mixed_cart.error_message ?? "Preorder items must be checked out separately from items in stock.");
    }
  });
  for (const { offer, variantId, quantity, line } of perVariant.values()) {
    const min = offer.limits?.per_order?.min ?? 1;
    const max = offer.limits?.per_order?.max ?? null;
    if (max !== null && quantity > max) {
      errors.push({ localizedMessage: `You can preorder at most ${max} of ${title(variantId)} in one order.`, target: `$.cart.lines[${line}].quantity` });
    }
    if (quantity < min) {
      errors.push({ localizedMessage: `You must preorder at least ${min} of ${title(variantId)} in one order.`, target: `$.cart.lines[${line}].quantity` });
    }
  }
  if (perOffer.size > 0) {
    const remaining = counter(shopAppMetafield(ctx, REMAINING_KEY));
    const customerId = buyer.customerId ?? null;
    const had = customerId === null ? {} : counter(customerAppMetafield(ctx, customerId, CUSTOMER_UNITS_KEY));
    for (const { offer, variantId, quantity, line } of perOffer.values()) {
      const target = `$.cart.lines[${line}].quantity`;
      // Before the first counter is written, nothing is known to be preordered: total.max is left.
      const left = remaining[offer.offer_id] ?? offer.limits?.total?.max ?? null;
      if (left !== null && quantity > left) {
        errors.push({
          localizedMessage: left === 0 ? `${title(variantId)} can no longer be preordered: none are left.` : `Only ${units(left)} of ${title(variantId)} can still be preordered.`,
          target,
        });
      }
      const max = offer.limits?.per_customer?.max ?? null;
      const before = had[offer.offer_id] ?? 0;
      if (max !== null && before + quantity > max) {
        errors.push({
          localizedMessage:
            before > 0
              ? `You can preorder at most ${max} of ${title(variantId)} per customer; you have preordered ${before} already.`
              : `You can preorder at most ${max} of ${title(variantId)} per customer.`,
          target,
        });
      }
    }
  }
  for (const message of mixedMessages) errors.push({ localizedMessage: message, target: "$.cart" });
  return errors;
}
