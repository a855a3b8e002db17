import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { AdminError } from "../admin/errors.ts";
import { createOrder, retailLocationFor } from "../admin/orders.ts";
import type { Context } from "../context.ts";
import { gid, legacyIdOf } from "../ids.ts";
import { posCartValidations } from "./extension.ts";

const anyId = z.union([z.string().min(1), z.number().int().positive()]);

/** A sale rung up at the point of sale: its location, its lines (a preorder line on its selling plan), the customer if any. */
const posCheckoutBody = z.strictObject({
  location_id: anyId,
  line_items: z
    .array(
      z.strictObject({
        variant_id: anyId,
        quantity: z.number().int().positive(),
        selling_plan_id: anyId.optional(),
        properties: z.record(z.string().max(255), z.string().max(2000)).optional(),
      }),
    )
    .min(1),
  email: z.email().optional(),
  customer_id: anyId.optional(),
});

export interface PointOfSaleDeps {
  ctx: Context;
  /** Called after a change the state file should keep (an order). */
  changed?: () => void;
}

/**
 * The platform's point of sale, as far as an app sees it (decision 0213): `POST /pos/checkout`
 * checks a POS cart out at a retail location. Before it does, the app's POS UI extension checks the
 * cart (pos/extension.ts); an ERROR it returns stops the checkout: 422 `{ errors: [{ level, handle,
 * target, message }] }`. Otherwise the order is made paid, with `sourceName` `pos` and the
 * location as its `retailLocation` (REST: `source_name`, `location_id`), and orders/create and
 * orders/paid go to the app as for any order: 201 `{ order: { id, name, source_name, location_id } }`.
 * A malformed body is 400 `{ error }`; an unknown or inactive location, variant or a selling plan
 * not on the variant 422 `{ errors: [{ message }] }`.
 */
export function registerPointOfSale(app: FastifyInstance, deps: PointOfSaleDeps): void {
  const { ctx } = deps;
  app.post("/pos/checkout", async (request, reply) => {
    const parsed = posCheckoutBody.safeParse(request.body ?? {});
    if (!parsed.success) return reply.code(400).send({ error: parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ") });
    const body = parsed.data;
    try {
      const locationId = retailLocationFor(ctx, body.location_id);
      const location = ctx.store.location(locationId);
      if (!location) throw new AdminError(422, `location ${body.location_id} does not exist`);
      const lines = body.line_items.map((line, i) => {
        const variantId = legacyIdOf("ProductVariant", line.variant_id);
        if (variantId === undefined || !ctx.store.variant(variantId)) throw new AdminError(422, `line_items[${i}]: variant ${line.variant_id} does not exist`);
        const planId = line.selling_plan_id === undefined ? null : (legacyIdOf("SellingPlan", line.selling_plan_id) ?? -1);
        return { variantId, quantity: line.quantity, sellingPlanId: planId, properties: line.properties ?? {} };
      });
      const findings = posCartValidations(ctx, lines, location);
      if (findings.length > 0) return reply.code(422).send({ errors: findings });
      const { order } = createOrder(
        ctx,
        {
          line_items: body.line_items,
          financial_status: "paid",
          ...(body.email ? { email: body.email } : {}),
          ...(body.customer_id === undefined ? {} : { customer_id: body.customer_id }),
        },
        { sourceName: "pos", retailLocationId: location.id },
      );
      deps.changed?.();
      return reply.code(201).send({ order: { id: gid("Order", order.id), name: order.name, source_name: order.sourceName, location_id: location.id } });
    } catch (error) {
      if (error instanceof AdminError) return reply.code(error.status).send({ errors: [{ message: error.message }] });
      throw error;
    }
  });
}
