import type { Db } from "../../core/db.ts";
import { checkoutGroup } from "../offers/groups/checkout.ts";
import { integrationsGroup } from "../offers/groups/integrations.ts";
import { limitsGroup } from "../offers/groups/limits.ts";
import { marketsGroup } from "../offers/groups/markets.ts";

/**
 * The offers' order rules, checked when a preorder order arrives: quantity limits (per order, per
 * customer, in total), whether preorder and in-stock items may share an order, and the markets an
 * offer is limited to (the order's market is resolved at ingest from the buyer's country, as the
 * platform assigns markets; decision 0205). The storefront and the checkout keep a shopper within them; an order that
 * still breaks one (placed by hand, through another channel, or racing another buyer for the last
 * units) is never counted silently: it is tagged on the platform with the rule's tag and recorded,
 * and the shop's developer webhook is told (preorder_order.rules_broken). Decision 0197.
 *
 * An order of the point of sale (source name `pos`) holding a preorder line of an offer whose
 * `integrations.pos.enabled` is false breaks the `pos` rule: the app's POS extension refuses such a
 * line, so one that got through (a metafield that lagged the switch, an order made another way)
 * is flagged, never counted silently (decision 0213).
 */

export const ORDER_RULES = ["per_order.min", "per_order.max", "per_customer.max", "total.max", "mixed_cart", "markets", "pos"] as const;
export type OrderRule = (typeof ORDER_RULES)[number];

/** Given to every order that breaks a quantity limit, beside the limit's own tag. */
export const LIMIT_EXCEEDED_TAG = "preorder-limit-exceeded";

/** The platform order tag that names each rule. */
export const RULE_TAGS: Readonly<Record<OrderRule, string>> = {
  "per_order.min": "preorder-limit-per-order",
  "per_order.max": "preorder-limit-per-order",
  "per_customer.max": "preorder-limit-per-customer",
  "total.max": "preorder-limit-total",
  mixed_cart: "preorder-mixed-cart",
  markets: "preorder-market-excluded",
  pos: "preorder-pos-disabled",
};

/** The platform's source name of an order placed at its point of sale. */
export const POS_SOURCE_NAME = "pos";

const LIMIT_RULES: ReadonlySet<OrderRule> = new Set(["per_order.min", "per_order.max", "per_customer.max", "total.max"]);

export interface RuleBreak {
  offer_id: string;
  rule: OrderRule;
  /** per_order rules: the variant whose quantity broke it. */
  variant_id: string | null;
  /** The limit (a quantity rule's min or max); null for mixed_cart, markets and pos. */
  limit: number | null;
  /** The units that broke it: the variant's in this order, the customer's, or the offer's in total. */
  units: number | null;
}

export interface RuleOrder {
  id: string;
  email: string | null;
  customer_id: string | null;
  /** Where the platform says the order was placed (`pos`: the point of sale); null or absent when unknown. */
  source_name?: string | null;
}

export interface RuleOffer {
  id: string;
  settings: Record<string, unknown>;
  /** Some variant of the offer has its own per-order maximum (set_max_count, decision 0203). */
  variant_max?: boolean;
}

/** The tags an order with these breaks gets on the platform. */
export function ruleBreakTags(breaks: readonly RuleBreak[]): string[] {
  const tags = new Set<string>();
  for (const broken of breaks) {
    if (LIMIT_RULES.has(broken.rule)) tags.add(LIMIT_EXCEEDED_TAG);
    tags.add(RULE_TAGS[broken.rule]);
  }
  return [...tags];
}

/** The rules the order (already applied, its lines stored) breaks, offer by offer, in the offers' order. */
export async function findRuleBreaks(db: Db, shopId: string, order: RuleOrder, offers: readonly RuleOffer[]): Promise<RuleBreak[]> {
  const rules = offers.map((offer) => ({
    id: offer.id,
    variantMax: offer.variant_max === true,
    limits: limitsGroup.schema.parse(offer.settings.limits ?? {}),
    mixedCartAllowed: checkoutGroup.schema.parse(offer.settings.checkout ?? {}).mixed_cart.allowed,
    markets: marketsGroup.schema.parse(offer.settings.markets ?? {}),
    posEnabled: integrationsGroup.schema.parse(offer.settings.integrations ?? {}).pos.enabled,
  }));
  // Every order goes through here: an order whose offers set no rule costs no query and no lock.
  const perOrder = rules.some((r) => r.limits.per_order.min > 1 || r.limits.per_order.max !== null || r.variantMax);
  const counted = rules.filter((r) => r.limits.per_customer.max !== null || r.limits.total.max !== null);
  const mixedCartRule = rules.some((r) => !r.mixedCartAllowed);
  const marketRule = rules.some((r) => r.markets.enabled && !r.markets.applies_to_all_markets);
  // The offers' lines in an order of the point of sale must be of offers sold there.
  const posRule = order.source_name === POS_SOURCE_NAME && rules.some((r) => !r.posEnabled);
  if (!perOrder && counted.length === 0 && !mixedCartRule && !marketRule && !posRule) return [];

  // Orders of one offer with a counted limit are judged one after the other: two orders racing
  // for its last units would each count the units without the other's (uncommitted) lines and
  // both pass. The lines are written already; a second order waits here for the first to commit.
  for (const id of counted.map((r) => r.id).sort()) await db.query("select pg_advisory_xact_lock(hashtext('preorder_offer_units:' || $1))", [id]);
  const lines = perOrder
    ? (
        await db.query<{ offer_id: string; variant_id: string | null; units: number; variant_max: number | null }>(
          // A variant's own max count (set_max_count) stands in for the offer's per_order.max.
          `select l.offer_id::text, l.variant_id, sum(l.quantity)::int as units, min(v.max_count) as variant_max
           from preorder_order_lines l
           left join preorder_offer_variant_overrides v on v.offer_id = l.offer_id and v.variant_id = l.variant_id
           where l.order_id = $1 and l.selling_plan_id is not null and l.offer_id is not null group by 1, 2 order by 2`,
          [order.id],
        )
      ).rows
    : [];
  const hasRegularLines =
    mixedCartRule &&
    ((await db.query<{ any: boolean }>("select exists (select 1 from preorder_order_lines where order_id = $1 and selling_plan_id is null) as any", [order.id])).rows[0]?.any ?? false);
  // The order's market, as ingest resolved it from the buyer's country (null: no address, or a
  // country in none of the shop's markets: nothing to compare, decision 0205).
  const orderMarket = marketRule
    ? ((await db.query<{ market_id: string | null }>("select market_id from preorder_orders where id = $1", [order.id])).rows[0]?.market_id ?? null)
    : null;
  const breaks: RuleBreak[] = [];
  const add = (offerId: string, rule: OrderRule, fields: Partial<Omit<RuleBreak, "offer_id" | "rule">> = {}) =>
    breaks.push({ offer_id: offerId, rule, variant_id: null, limit: null, units: null, ...fields });

  for (const { id, limits, mixedCartAllowed, markets, posEnabled } of rules) {
    for (const line of lines.filter((l) => l.offer_id === id)) {
      if (line.units < limits.per_order.min) add(id, "per_order.min", { variant_id: line.variant_id, limit: limits.per_order.min, units: line.units });
      const max = line.variant_max ?? limits.per_order.max;
      if (max !== null && line.units > max) add(id, "per_order.max", { variant_id: line.variant_id, limit: max, units: line.units });
    }
    const customerMax = limits.per_customer.max;
    if (customerMax !== null && (order.customer_id !== null || order.email !== null)) {
      // The one count of a customer's units (sql/116), which the customer's counter on the platform also is (decision 0211).
      const { rows } = await db.query<{ units: number }>("select units from preorder_customer_offer_units($1, $3, array[$4]::text[]) where offer_id = $2", [
        shopId,
        id,
        order.customer_id,
        order.email,
      ]);
      const units = rows[0]?.units ?? 0;
      if (units > customerMax) add(id, "per_customer.max", { limit: customerMax, units });
    }
    const totalMax = limits.total.max;
    if (totalMax !== null) {
      // The offer's live units: the count behind total.current_count, the remaining route and the shop's counter.
      const { rows } = await db.query<{ units: number }>("select preorder_offer_units($1, $2) as units", [shopId, id]);
      const units = rows[0]?.units ?? 0;
      if (units > totalMax) add(id, "total.max", { limit: totalMax, units });
    }
    if (hasRegularLines && !mixedCartAllowed) add(id, "mixed_cart");
    if (orderMarket !== null && markets.enabled && !markets.applies_to_all_markets && !markets.market_ids.includes(orderMarket)) add(id, "markets");
    if (posRule && !posEnabled) add(id, "pos");
  }
  return breaks;
}
