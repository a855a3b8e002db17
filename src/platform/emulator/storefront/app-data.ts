import type { Context } from "../context.ts";
import { SHOP_ID } from "../ids.ts";
import type { Variant } from "../model.ts";

/**
 * The app's metafields as a theme reads them (`variant.metafields['app--<id>--preorder']`,
 * `shop.metafields[...]`): json values parsed, in the app's `preorder` namespace, where the
 * service writes the offers' configuration (`offer-<id>`, decision 0196) and the shop's (`shop`).
 */
export function appNamespace(ctx: Context): string {
  return `app--${ctx.appId}--preorder`;
}

/** A metafield's value as Liquid's `metafield.value` and the Function input's `jsonValue` read it: json parsed, else its text. */
export function parsed(value: string, type: string): unknown {
  if (type !== "json") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return null;
  }
}

/** The variant's app metafields by key: `offer-<id>` → the offer configuration, and any others beside. */
export function variantAppMetafields(ctx: Context, variant: Variant): Record<string, unknown> {
  const namespace = appNamespace(ctx);
  const found: Record<string, unknown> = {};
  for (const metafield of ctx.store.metafieldsOf("PRODUCTVARIANT", variant.id)) {
    if (metafield.namespace === namespace) found[metafield.key] = parsed(metafield.value, metafield.type);
  }
  return found;
}

/** An app metafield of the shop (`$app:preorder` `<key>`), parsed; null when the app has not written it. */
export function shopAppMetafield(ctx: Context, key: string): unknown {
  const metafield = ctx.store.metafield("SHOP", SHOP_ID, appNamespace(ctx), key);
  return metafield ? parsed(metafield.value, metafield.type) : null;
}

/** An app metafield of a customer (`$app:preorder` `<key>`), parsed; null when the app has not written it. */
export function customerAppMetafield(ctx: Context, customerId: number, key: string): unknown {
  const metafield = ctx.store.metafield("CUSTOMER", customerId, appNamespace(ctx), key);
  return metafield ? parsed(metafield.value, metafield.type) : null;
}

/** Whether the variant can be bought now: in stock, not tracked, or selling past zero. */
export function variantAvailable(ctx: Context, variant: Variant): boolean {
  return !variant.tracked || variant.inventoryPolicy === "CONTINUE" || ctx.store.inventoryQuantity(ctx.store.variantIndex(variant)) > 0;
}
