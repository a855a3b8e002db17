import type { Context } from "../context.ts";
import { parseGid } from "../ids.ts";
import type { InventoryPolicy, Product, Variant } from "../model.ts";
import type { Resolvers } from "./types.ts";
import { UserErrors } from "./user-errors.ts";

/**
 * `productVariantsBulkUpdate` as the platform has it: variants of one product, each named by id,
 * changed together (one user error and none is changed, unless allowPartialUpdates). The emulator
 * takes inventoryPolicy and price; the product gets its products/update webhook, as the platform
 * sends one for a variant change.
 */

/** The platform's variant limit per product (and so per call). */
const MAX_VARIANTS = 2048;

interface BulkInput {
  id?: string | null;
  inventoryPolicy?: InventoryPolicy | null;
  price?: string | null;
}

interface BulkArgs {
  productId: string;
  variants: BulkInput[];
  allowPartialUpdates?: boolean | null;
}

function productVariantsBulkUpdate(ctx: Context, args: BulkArgs) {
  const errors = new UserErrors();
  const parsed = parseGid(args.productId);
  const product: Product | undefined = parsed?.type === "Product" ? ctx.store.product(parsed.id) : undefined;
  if (!product) {
    errors.add(["productId"], "Product does not exist", "PRODUCT_DOES_NOT_EXIST");
    return { product: null, productVariants: null, userErrors: errors.list };
  }
  if (args.variants.length > MAX_VARIANTS) {
    errors.add(["variants"], `Exceeded the maximum of ${MAX_VARIANTS} variants per product.`, "INVALID_INPUT");
    return { product: null, productVariants: null, userErrors: errors.list };
  }
  const changes: { variant: Variant; input: BulkInput; price: number | undefined }[] = [];
  args.variants.forEach((input, i) => {
    const before = errors.list.length;
    if (!input.id) {
      errors.add(["variants", i, "id"], "Product variant is missing ID attribute", "PRODUCT_VARIANT_ID_MISSING");
      return;
    }
    const id = parseGid(input.id);
    const variant = id?.type === "ProductVariant" ? ctx.store.variant(id.id) : undefined;
    if (!variant) {
      errors.add(["variants", i, "id"], "Product variant does not exist", "PRODUCT_VARIANT_DOES_NOT_EXIST");
      return;
    }
    if (variant.productId !== product.id) {
      errors.add(["variants", i, "id"], "Product variant must be for this product", "MUST_BE_FOR_THIS_PRODUCT");
      return;
    }
    let price: number | undefined;
    if (input.price !== undefined && input.price !== null) {
      const value = Number(input.price);
      if (!Number.isFinite(value)) errors.add(["variants", i, "price"], "Price is invalid", "INVALID_INPUT");
      else if (value < 0) errors.add(["variants", i, "price"], "Price must be greater than or equal to 0", "GREATER_THAN_OR_EQUAL_TO");
      else price = Math.round(value * 100);
    }
    if (errors.list.length === before) changes.push({ variant, input, price });
  });
  if (errors.any && !args.allowPartialUpdates) return { product: null, productVariants: null, userErrors: errors.list };
  const at = ctx.store.now();
  for (const { variant, input, price } of changes) {
    if (input.inventoryPolicy) variant.inventoryPolicy = input.inventoryPolicy;
    if (price !== undefined) variant.priceCents = price;
    ctx.store.touchVariant(variant, at);
  }
  if (changes.length > 0) {
    ctx.store.touchProduct(product, at);
    ctx.events.productUpdated(product);
  }
  return { product, productVariants: changes.map((c) => c.variant), userErrors: errors.list };
}

export const variantMutations: Resolvers = {
  Mutation: {
    productVariantsBulkUpdate: (_: unknown, args: BulkArgs, ctx: Context) => productVariantsBulkUpdate(ctx, args),
  },
};
