import type { Context } from "../context.ts";
import { gid } from "../ids.ts";
import { variantAppMetafields } from "./app-data.ts";
import type { Cart } from "./cart.ts";

/**
 * The app's cart and checkout validation, run at checkout as the platform runs an app's Cart and
 * Checkout Validation Function: its input is the cart (lines with their selling plan, the buyer,
 * the market) and the app's metafields on the lines' variants (the offer configuration the service
 * wrote, decision 0196); its output is errors the checkout shows and that stop it. The rules need
 * nothing but the cart: per-order min and max (a variant's own max count is its per_order.max in
 * its metafield, decision 0203), the mixed-cart
 * rule, the offer's markets and its B2B switch. Limits that count other orders (per customer,
 * total) are beyond a function's input: the service flags those at order ingest (decision 0197).
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
}

interface OfferRules {
  offer_id: string;
  selling_plan_id: string | null;
  name?: string;
  limits?: { per_order?: { min?: number; max?: number | null } };
  checkout?: { mixed_cart?: { allowed?: boolean; error_message?: string } };
  markets?: { enabled?: boolean; applies_to_all_markets?: boolean; market_ids?: string[] };
  integrations?: { b2b?: { enabled?: boolean } };
}

function offerOfLine(ctx: Context, variantId: number, sellingPlanId: number): OfferRules | undefined {
  const variant = ctx.store.variant(variantId);
  if (!variant) return undefined;
  const planGid = gid("SellingPlan", sellingPlanId);
  for (const [key, value] of Object.entries(variantAppMetafields(ctx, variant))) {
    if (!key.startsWith("offer-") || value === null || typeof value !== "object") continue;
    const offer = value as OfferRules;
    if (offer.selling_plan_id === planGid) return offer;
  }
  return undefined;
}

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
  // Units per (offer, variant), as the offer's per-order limit counts them.
  const units = new Map<string, { offer: OfferRules; variantId: number; quantity: number; line: number }>();
  const mixedMessages = new Set<string>();
  cart.lines.forEach((line, index) => {
    if (line.sellingPlanId === null) return;
    const offer = offerOfLine(ctx, line.variantId, line.sellingPlanId);
    if (!offer) return;
    const key = `${offer.offer_id}:${line.variantId}`;
    const entry = units.get(key) ?? { offer, variantId: line.variantId, quantity: 0, line: index };
    entry.quantity += line.quantity;
    units.set(key, entry);
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
  for (const { offer, variantId, quantity, line } of units.values()) {
    const min = offer.limits?.per_order?.min ?? 1;
    const max = offer.limits?.per_order?.max ?? null;
    if (max !== null && quantity > max) {
      errors.push({ localizedMessage: `You can preorder at most ${max} of ${title(variantId)} in one order.`, target: `$.cart.lines[${line}].quantity` });
    }
    if (quantity < min) {
      errors.push({ localizedMessage: `You must preorder at least ${min} of ${title(variantId)} in one order.`, target: `$.cart.lines[${line}].quantity` });
    }
  }
  for (const message of mixedMessages) errors.push({ localizedMessage: message, target: "$.cart" });
  return errors;
}
