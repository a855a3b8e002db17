import type { Context } from "../context.ts";
import { SHOP_ID } from "../ids.ts";
import type { MetafieldOwnerType, Product, Variant } from "../model.ts";
import { appNamespace, parsed, variantAvailable } from "./app-data.ts";

/**
 * Shopify's Liquid objects as a theme (and the app embed block, decision 0232) reads them on the
 * emulator's online store: `shop`, `product` with its `variants`, their `metafields`, `request`,
 * `localization`, `template`, `cart.currency`. Only the properties the emulator's theme and the app embed use.
 */

export interface LiquidMetafield {
  /** A json metafield's value parsed (`metafield.value`), anything else its text. */
  value: unknown;
  type: string;
}

/** `<owner>.metafields`: by namespace, then key; the app's namespace both as `$app:preorder` (theme app extensions) and fully qualified. */
export type LiquidMetafields = Record<string, Record<string, LiquidMetafield>>;

export function liquidMetafields(ctx: Context, ownerType: MetafieldOwnerType, ownerId: number): LiquidMetafields {
  const found: LiquidMetafields = {};
  for (const metafield of ctx.store.metafieldsOf(ownerType, ownerId)) {
    const namespace = (found[metafield.namespace] ??= {});
    namespace[metafield.key] = { value: parsed(metafield.value, metafield.type), type: metafield.type };
  }
  const own = found[appNamespace(ctx)];
  if (own) found["$app:preorder"] = own;
  return found;
}

export interface LiquidVariant {
  id: number;
  title: string;
  /** In cents, as Liquid's `variant.price`. */
  price: number;
  available: boolean;
  inventory_quantity: number;
  /** `deny` or `continue` */
  inventory_policy: string;
  metafields: LiquidMetafields;
}

export function liquidVariant(ctx: Context, variant: Variant): LiquidVariant {
  return {
    id: variant.id,
    title: variant.title,
    price: variant.priceCents,
    available: variantAvailable(ctx, variant),
    inventory_quantity: ctx.store.inventoryQuantity(ctx.store.variantIndex(variant)),
    inventory_policy: variant.inventoryPolicy.toLowerCase(),
    metafields: liquidMetafields(ctx, "PRODUCTVARIANT", variant.id),
  };
}

export interface LiquidProduct {
  id: number;
  title: string;
  handle: string;
  variants: LiquidVariant[];
}

export function liquidProduct(ctx: Context, product: Product): LiquidProduct {
  return { id: product.id, title: product.title, handle: product.handle, variants: ctx.store.variantsOf(product).map((v) => liquidVariant(ctx, v)) };
}

/** `shop`: its name, currency (ISO code) and metafields. */
export function liquidShop(ctx: Context): { name: string; currency: string; metafields: LiquidMetafields } {
  return { name: ctx.shop.name, currency: ctx.shop.currencyCode, metafields: liquidMetafields(ctx, "SHOP", SHOP_ID) };
}

/** The page's `request`, `localization` and `template` objects; `marketId` as the widget reads it (a gid). */
export function liquidPage(page: { locale: string; marketId: string | null; template: string }): Record<string, unknown> {
  return {
    request: { locale: { iso_code: page.locale } },
    localization: { market: page.marketId === null ? null : { id: page.marketId } },
    template: { name: page.template },
  };
}
