import type { PreorderSettings } from "./settings.ts";

/**
 * The shop's offer_defaults applied to a new offer's body (POST /preorders/offers): each default
 * the merchant set becomes the group patch the body would have sent, unless the body sets that
 * field itself (or a field the default would contradict: auto_collect_on_fulfillment for
 * auto_collect, an on_date due for balance_due_days). The result is checked by the groups' rules
 * like any body.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** The value at `path` of a body's group patch (undefined when not sent). */
function at(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

/** `value` set at `path` of `groups` unless something is there already. */
function put(groups: Json, path: readonly string[], value: unknown): void {
  let current = groups;
  for (const key of path.slice(0, -1)) {
    const next = current[key];
    if (isObject(next)) current = next;
    else {
      const created: Json = {};
      current[key] = created;
      current = created;
    }
  }
  const last = path.at(-1);
  if (last !== undefined && current[last] === undefined) current[last] = value;
}

/** The body's groups with the shop's offer defaults filled in (a copy: the body is not changed). */
export function withOfferDefaults<G extends Json>(groups: G, defaults: PreorderSettings["offer_defaults"]): G {
  const out = structuredClone(groups) as Json;
  if (defaults.button_text !== null) put(out, ["widget", "button", "text"], defaults.button_text);
  if (defaults.order_tags !== null) put(out, ["checkout", "order_tags", "tags"], [...defaults.order_tags]);
  if (defaults.auto_collect !== null && at(out, ["payments", "remaining_balance", "auto_collect_on_fulfillment"]) === undefined) {
    put(out, ["payments", "remaining_balance", "auto_collect"], defaults.auto_collect);
  }
  if (defaults.balance_due_days !== null && at(out, ["payments", "remaining_balance", "due"]) === undefined) {
    put(out, ["payments", "remaining_balance", "due"], { type: "days_after_checkout", days: defaults.balance_due_days });
  }
  return out as G;
}
