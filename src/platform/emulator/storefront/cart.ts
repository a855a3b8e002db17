import { randomBytes } from "node:crypto";
import type { Context } from "../context.ts";
import { legacyIdOf } from "../ids.ts";
import { formatCents } from "../money.ts";
import type { Variant } from "../model.ts";
import { variantAvailable } from "./app-data.ts";

/**
 * Shoppers' carts, as the online store keeps them: one per `cart` cookie, in memory (not in the
 * state file: a restart empties carts, as they would expire). Lines of the same variant, selling
 * plan and properties are one line.
 */
export interface CartLine {
  key: string;
  variantId: number;
  quantity: number;
  sellingPlanId: number | null;
  properties: Record<string, string>;
}

export interface Cart {
  token: string;
  lines: CartLine[];
}

/** A refusal as the cart API answers it: 422 `{ status, message, description }`. */
export class CartError extends Error {
  readonly description: string;
  readonly status: number;
  constructor(description: string, status = 422) {
    super(description);
    this.description = description;
    this.status = status;
  }
}

export class Carts {
  readonly #carts = new Map<string, Cart>();

  get(token: string | undefined): Cart | undefined {
    return token === undefined ? undefined : this.#carts.get(token);
  }

  open(token: string | undefined): Cart {
    const found = this.get(token);
    if (found) return found;
    const cart: Cart = { token: randomBytes(16).toString("hex"), lines: [] };
    this.#carts.set(cart.token, cart);
    return cart;
  }

  clear(cart: Cart): void {
    cart.lines = [];
  }
}

export interface AddItem {
  id?: unknown;
  quantity?: unknown;
  selling_plan?: unknown;
  properties?: unknown;
}

function lineKey(variantId: number, sellingPlanId: number | null, properties: Record<string, string>): string {
  return `${variantId}:${sellingPlanId ?? ""}:${Buffer.from(JSON.stringify(Object.entries(properties).sort())).toString("base64url").slice(0, 16)}`;
}

/** Adds an item as `/cart/add.js` does: the variant must exist and be for sale, the plan must be one of its groups'. */
export function addItem(ctx: Context, cart: Cart, item: AddItem): CartLine {
  const { store } = ctx;
  const variantId = legacyIdOf("ProductVariant", typeof item.id === "string" || typeof item.id === "number" ? item.id : undefined);
  const variant = variantId === undefined ? undefined : store.variant(variantId);
  if (!variant) throw new CartError("Cannot find variant", 404);
  const product = store.productOf(variant);
  if (product.status !== "ACTIVE") throw new CartError(`${product.title} is not available.`);
  const quantity = item.quantity === undefined || item.quantity === "" ? 1 : Number(item.quantity);
  if (!Number.isInteger(quantity) || quantity < 1) throw new CartError("Quantity must be a whole number of at least 1.");
  const plan = item.selling_plan === undefined || item.selling_plan === null || item.selling_plan === "" ? null : sellingPlanOf(ctx, variant, item.selling_plan);
  const properties = propertiesOf(item.properties);
  const key = lineKey(variant.id, plan, properties);
  const existing = cart.lines.find((l) => l.key === key);
  const wanted = quantity + (existing?.quantity ?? 0);
  checkStock(ctx, variant, product.title, wanted + cart.lines.filter((l) => l.variantId === variant.id && l.key !== key).reduce((n, l) => n + l.quantity, 0));
  if (existing) {
    existing.quantity = wanted;
    return existing;
  }
  const line: CartLine = { key, variantId: variant.id, quantity, sellingPlanId: plan, properties };
  cart.lines.push(line);
  return line;
}

function sellingPlanOf(ctx: Context, variant: Variant, value: unknown): number {
  const id = legacyIdOf("SellingPlan", typeof value === "string" || typeof value === "number" ? value : undefined);
  const plan = id === undefined ? undefined : ctx.store.sellingPlans.get(id);
  const group = plan ? ctx.store.sellingPlanGroups.get(plan.groupId) : undefined;
  // The platform offers a plan only on the variants of its group.
  if (!plan || !group?.variantIds.has(variant.id)) throw new CartError("The selling plan is not available for this item.");
  return plan.id;
}

function propertiesOf(value: unknown): Record<string, string> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return {};
  const properties: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) if (v !== null && v !== undefined && String(v) !== "") properties[key] = String(v);
  return properties;
}

/** A tracked variant that does not sell past zero takes no more than it has. */
function checkStock(ctx: Context, variant: Variant, title: string, quantity: number): void {
  if (!variant.tracked || variant.inventoryPolicy === "CONTINUE") return;
  const available = ctx.store.inventoryQuantity(ctx.store.variantIndex(variant));
  if (!variantAvailable(ctx, variant)) throw new CartError(`The product '${title}' is already sold out.`);
  if (quantity > available) throw new CartError(`You can only add ${available} ${title} to the cart.`);
}

/** Changes a line's quantity (0 removes it), by its key, its variant id or its 1-based position. */
export function changeLine(ctx: Context, cart: Cart, body: { id?: unknown; line?: unknown; quantity?: unknown }): void {
  const quantity = Number(body.quantity);
  if (!Number.isInteger(quantity) || quantity < 0) throw new CartError("Quantity must be a whole number.");
  const line =
    body.line !== undefined
      ? cart.lines[Number(body.line) - 1]
      : cart.lines.find((l) => l.key === String(body.id) || String(l.variantId) === String(body.id));
  if (!line) throw new CartError("Cannot find the line to change.", 400);
  if (quantity === 0) {
    cart.lines = cart.lines.filter((l) => l !== line);
    return;
  }
  const variant = ctx.store.variant(line.variantId);
  if (variant) checkStock(ctx, variant, ctx.store.productOf(variant).title, quantity);
  line.quantity = quantity;
}

/** The cart as `/cart.js` answers it (prices in cents, as the platform's Ajax API). */
export function cartJson(ctx: Context, cart: Cart): Record<string, unknown> {
  const items = cart.lines.map((line) => {
    const variant = ctx.store.variant(line.variantId);
    const product = variant ? ctx.store.productOf(variant) : undefined;
    const plan = line.sellingPlanId === null ? undefined : ctx.store.sellingPlans.get(line.sellingPlanId);
    const price = variant?.priceCents ?? 0;
    return {
      key: line.key,
      id: line.variantId,
      variant_id: line.variantId,
      product_id: variant?.productId ?? null,
      title: product && variant ? `${product.title} - ${variant.title}` : String(line.variantId),
      handle: product?.handle ?? null,
      quantity: line.quantity,
      price,
      line_price: price * line.quantity,
      properties: line.properties,
      selling_plan_allocation: plan ? { selling_plan: { id: plan.id, name: plan.name } } : null,
    };
  });
  const total = items.reduce((sum, item) => sum + item.line_price, 0);
  return {
    token: cart.token,
    item_count: items.reduce((n, item) => n + item.quantity, 0),
    items,
    total_price: total,
    total_price_formatted: formatCents(total),
    currency: ctx.shop.currencyCode,
  };
}
