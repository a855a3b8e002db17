import { z } from "zod";
import { defineAction } from "../../core/action.ts";
import { notFound } from "../../core/errors.ts";
import { pageOutput } from "../../core/outputs.ts";
import { PAGING_RULE, cursorPart, pageOrCursor, paging, pagingParams } from "../../core/paging.ts";
import { platformGid } from "../../core/params.ts";
import { assertCatalogMirrored } from "../../catalog/readiness.ts";
import { findProduct, searchProducts } from "../products.ts";

const variantOutput = z.strictObject({
  id: z.string().describe("gid of the variant"),
  legacy_id: z.string().describe("the variant's numeric id"),
  title: z.string(),
  sku: z.string().nullable(),
  price: z.string().describe("decimal, in the shop's currency"),
  inventory_policy: z.string().describe("DENY or CONTINUE (selling when out of stock)"),
  available: z.int().nullable().describe("units available over the mirrored locations; null when no inventory level is mirrored"),
});

const productOutput = z.strictObject({
  id: z.string().describe("gid of the product"),
  legacy_id: z.string().nullable().describe("the product's numeric id"),
  title: z.string(),
  handle: z.string(),
  status: z.string(),
  vendor: z.string().nullable(),
  product_type: z.string().nullable(),
  tags: z.array(z.string()),
  collection_ids: z.array(z.string()),
  total_available: z.int().nullable().describe("sum of the variants' available units; null when none is mirrored"),
  variants: z.array(variantOutput),
});

const PRODUCT = "Product";
const PRODUCT_FIELDS =
  "id, legacy_id, title, handle, status, vendor, product_type, tags, collection_ids, total_available, variants (id, legacy_id, title, sku, price, inventory_policy, available)";

export const searchCatalogProducts = defineAction({
  name: "account.products.list",
  method: "GET",
  path: "/account/products",
  description: `Searches the shop's catalog as mirrored from the store platform: query (optional) matches the product title, a variant title or a SKU (case-insensitive substring); without it every product is listed. Sorted by title. Each product: ${PRODUCT_FIELDS}. ${PAGING_RULE}.`,
  notes: ["While the first full catalog sync of a connected shop runs, the mirror is partial: 409 (see GET /account/setup for its progress)."],
  aliases: ["search the product catalog", "find a product by sku", "list the store products"],
  kind: "read",
  input: z
    .strictObject({
      query: z.string().max(200).optional(),
      ...pagingParams(z.tuple([cursorPart.text, cursorPart.text])),
    })
    .superRefine(pageOrCursor),
  output: pageOutput("products", productOutput),
  async handler(ctx, { input }) {
    await assertCatalogMirrored(ctx.db, ctx.shopId);
    return searchProducts(ctx.db, ctx.shopId, input.query, paging(input));
  },
});

export const getCatalogProduct = defineAction({
  name: "account.products.get",
  method: "GET",
  path: "/account/products/{id}",
  description: `One product of the catalog mirror, by numeric id or gid, with its variants and their inventory: ${PRODUCT_FIELDS}. An id not in the mirror is 404, or 409 while the first full catalog sync runs.`,
  aliases: ["show one catalog product", "read a product with its variants"],
  kind: "read",
  params: z.object({ id: z.string() }),
  input: z.strictObject({}),
  output: productOutput,
  async handler(ctx, { params }) {
    const product = await findProduct(ctx.db, ctx.shopId, platformGid("Product", params.id));
    if (product) return product;
    await assertCatalogMirrored(ctx.db, ctx.shopId);
    throw notFound(PRODUCT, params.id);
  },
});
