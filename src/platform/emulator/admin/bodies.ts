import { z } from "zod";

/** Admin request bodies. Ids may be gids or the platform's legacy numbers, as in webhooks. */

const anyId = z.union([z.string().min(1), z.number().int().positive()]);
const money = z.union([z.string().regex(/^\d+(\.\d{1,2})?$/), z.number().nonnegative()]);
const tags = z.union([z.array(z.string()), z.string()]);

export const inventoryBody = z.object({
  variant_id: anyId,
  available: z.number().int(),
  location_id: anyId.optional(),
});

export const orderBody = z.object({
  line_items: z
    .array(
      z.object({
        variant_id: anyId,
        quantity: z.number().int().positive(),
        price: money.optional(),
        selling_plan_id: anyId.optional(),
        // Line item properties, as the cart sends them (`properties[name]=value`).
        properties: z.record(z.string().max(255), z.string().max(2000)).optional(),
      }),
    )
    .min(1),
  email: z.email().optional(),
  customer_id: anyId.optional(),
  financial_status: z.enum(["paid", "pending", "partially_paid"]).default("paid"),
  /** Applies to every line that names no plan of its own. */
  selling_plan_id: anyId.optional(),
  /** For partially_paid: what was paid; default half the total. */
  amount_paid: money.optional(),
  tags: tags.optional(),
  /** Where the order was placed (the platform's source_name); default web. `pos` needs location_id. */
  source_name: z.string().min(1).max(255).optional(),
  /** The point of sale's location of a pos order. */
  location_id: anyId.optional(),
});
export type OrderBody = z.infer<typeof orderBody>;

export const productBody = z.object({
  title: z.string().min(1).optional(),
  tags: tags.optional(),
  status: z.enum(["ACTIVE", "DRAFT"]).optional(),
});
