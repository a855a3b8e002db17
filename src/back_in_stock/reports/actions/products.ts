import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import { notFound } from "../../../core/errors.ts";
import { pageOutput } from "../../../core/outputs.ts";
import { PAGING_RULE, cursorPart, pageAnswer, pageOrCursor, paging, pagingParams } from "../../../core/paging.ts";
import { productIdSchema } from "../../signups/model.ts";
import { demandProducts } from "../products.ts";

const BIS_PRODUCT_RESOURCE = "Back-in-stock product";

const countFields = {
  signups: z.int().min(0).describe("signups ever made (every status)"),
  waiting: z.int().min(0).describe("signups waiting for their alert"),
  units_wanted: z.int().min(0).describe("units the waiting signups want: their quantities summed (a signup without one wants 1)"),
  notified: z.int().min(0).describe("signups alerted at least once"),
  conversions: z.int().min(0).describe("signups converted by an order"),
  conversion_rate: z.number().min(0).max(1).describe("conversions / notified, 4 decimals; 0 when none were notified"),
};

const available = z.int().nullable().describe("units available now in the catalog mirror, summed over locations; null when the mirror has no inventory level");

const demandProductOutput = z.strictObject({
  id: z.string().describe("gid of the product"),
  title: z.string().nullable().describe("null when the product is not in the catalog mirror"),
  handle: z.string().nullable(),
  status: z.string().nullable().describe("the platform's product status (ACTIVE, DRAFT, ARCHIVED)"),
  ...countFields,
  available: available.describe("the sum of its variants' available units; null when none is known"),
  variants: z
    .array(
      z.strictObject({
        id: z.string().describe("gid of the variant"),
        title: z.string().nullable(),
        sku: z.string().nullable(),
        price: z.number().nullable(),
        available,
        ...countFields,
      }),
    )
    .describe("every variant of the product in the mirror, and any variant with signups that the mirror no longer has; most waiting first"),
});

const FIELDS =
  "id, title, handle, status, signups, waiting, units_wanted, notified, conversions, conversion_rate, available (stock now in the catalog mirror) and variants ([{ id, title, sku, price, available, signups, waiting, units_wanted, notified, conversions, conversion_rate }])";

const NOTES = [
  "A signup belongs to its variant's product in the catalog mirror, else to the product recorded with the signup.",
  "Counts cover every signup ever made; the products_in_demand report counts signups of a period per variant.",
];

export const listBackInStockProducts = defineAction({
  name: "back_in_stock.products.list",
  method: "GET",
  path: "/back_in_stock/products",
  aliases: ["list products customers are waiting for", "which products have the most back in stock signups", "show back in stock demand per product"],
  description: `Products with back-in-stock signups, most waiting signups first (then by id), as { products, page, per_page, total, next_cursor }, each with ${FIELDS}. ${PAGING_RULE}.`,
  notes: NOTES,
  kind: "read",
  input: z.strictObject({ ...pagingParams(z.tuple([cursorPart.bigint, cursorPart.text])) }).superRefine(pageOrCursor),
  output: pageOutput("products", demandProductOutput),
  async handler(ctx, { input }) {
    const p = paging(input);
    const { rows, total } = await demandProducts(ctx.db, ctx.shopId, { after: p.after, limit: p.limit, offset: p.offset });
    return pageAnswer("products", p, rows, total, (r) => r.cursor, ({ cursor: _cursor, ...product }) => product);
  },
});

export const getBackInStockProduct = defineAction({
  name: "back_in_stock.products.get",
  method: "GET",
  path: "/back_in_stock/products/{id}",
  aliases: ["show back in stock demand for a product", "how many customers wait for this product"],
  description: `Back-in-stock demand for one product, by numeric id or gid: ${FIELDS}. A product of the catalog mirror without signups answers zeros; 404 when neither the mirror nor any signup of this shop knows the product.`,
  notes: NOTES,
  kind: "read",
  params: z.object({ id: z.string() }),
  input: z.strictObject({}),
  output: demandProductOutput,
  async handler(ctx, { params }) {
    const id = productIdSchema.safeParse(params.id);
    const { rows } = id.success ? await demandProducts(ctx.db, ctx.shopId, { productId: id.data, limit: 1, offset: 0 }) : { rows: [] };
    const row = rows[0];
    if (!row) throw notFound(BIS_PRODUCT_RESOURCE, params.id);
    const { cursor: _cursor, ...product } = row;
    return product;
  },
});
