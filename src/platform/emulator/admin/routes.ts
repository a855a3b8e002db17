import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import type { Context } from "../context.ts";
import { legacyIdOf } from "../ids.ts";
import { inventoryLevelPayload, orderPayload, productPayload } from "../webhooks/payloads.ts";
import { inventoryBody, orderBody, productBody } from "./bodies.ts";
import { registerAppLifecycleRoutes } from "./app.ts";
import { AdminError } from "./errors.ts";
import { type OrderAction, changeOrder, createOrder } from "./orders.ts";
import { splitTags } from "../tags.ts";
import { variantListing } from "./variants.ts";

const MAX_LIST = 10_000;
const accessScopesBody = z.strictObject({ grant: z.array(z.string().min(1)).default([]), revoke: z.array(z.string().min(1)).default([]) });
const translationsBody = z.strictObject({ locale: z.string().min(2), values: z.record(z.string(), z.string().nullable()) });
const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_LIST).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new AdminError(400, parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; "));
  }
  return parsed.data;
}

function fail(reply: FastifyReply, error: unknown): FastifyReply {
  if (error instanceof AdminError) return reply.code(error.status).send({ error: error.message });
  throw error;
}

/**
 * The development and test interface: list seeded variants, set stock, create and move orders,
 * change products, each sending its webhook as the platform would. No token: the emulator listens
 * on 127.0.0.1 by default and is never a production server.
 */
export function registerAdminRoutes(app: FastifyInstance, ctx: Context): void {
  const { store } = ctx;
  registerAppLifecycleRoutes(app, ctx);

  app.get("/admin/variants", async (request, reply) => {
    try {
      const { limit, offset } = parse(listQuery, request.query);
      const variants = store.variants.slice(offset, offset + limit).map((v) => variantListing(ctx, v));
      return { total: store.variants.length, offset, variants };
    } catch (error) {
      return fail(reply, error);
    }
  });

  app.post("/admin/inventory", async (request, reply) => {
    try {
      const body = parse(inventoryBody, request.body);
      const variantId = legacyIdOf("ProductVariant", body.variant_id);
      const variant = variantId === undefined ? undefined : store.variant(variantId);
      if (!variant) throw new AdminError(404, `variant ${body.variant_id} does not exist`);
      const locationId = body.location_id === undefined ? store.activeLocations()[0]?.id : legacyIdOf("Location", body.location_id);
      const location = locationId === undefined ? undefined : store.location(locationId);
      if (!location) throw new AdminError(404, `location ${body.location_id ?? "(first active)"} does not exist`);
      if (!location.isActive || !location.levels) throw new AdminError(422, `location ${location.name} is not active and stocks nothing`);
      const level = store.setAvailable(store.variantIndex(variant), location, body.available);
      const webhookId = ctx.events.inventoryLevelUpdated(level);
      return { inventory_level: { ...inventoryLevelPayload(store, level), variant_id: variant.id }, webhook_id: webhookId };
    } catch (error) {
      return fail(reply, error);
    }
  });

  app.post("/admin/orders", async (request, reply) => {
    try {
      const { order, webhookIds } = createOrder(ctx, parse(orderBody, request.body));
      return reply.code(201).send({ order: orderPayload(store, order), webhook_ids: webhookIds });
    } catch (error) {
      return fail(reply, error);
    }
  });

  app.post<{ Params: { id: string; action: string } }>("/admin/orders/:id/:action", async (request, reply) => {
    try {
      const { action } = request.params;
      if (action !== "cancel" && action !== "fulfill" && action !== "pay") throw new AdminError(404, `no order action ${action}`);
      const { order, webhookIds } = changeOrder(ctx, request.params.id, action satisfies OrderAction);
      return { order: orderPayload(store, order), webhook_ids: webhookIds };
    } catch (error) {
      return fail(reply, error);
    }
  });

  // The app's access scopes as the merchant grants them (e.g. read_translations), the Flow
  // triggers it sent, and product translations as a translation app would write them.
  app.get("/admin/access_scopes", () => ({ access_scopes: ctx.app.scopes() }));

  app.post("/admin/access_scopes", async (request, reply) => {
    try {
      const body = parse(accessScopesBody, request.body ?? {});
      ctx.app.grant(body.grant);
      ctx.app.revoke(body.revoke);
      return { access_scopes: ctx.app.scopes() };
    } catch (error) {
      return fail(reply, error);
    }
  });

  app.get("/admin/flow_triggers", () => ({ flow_triggers: ctx.app.flowTriggers.map((t) => ({ handle: t.handle, payload: t.payload, received_at: new Date(t.receivedAt).toISOString() })) }));

  app.post<{ Params: { id: string } }>("/admin/products/:id/translations", async (request, reply) => {
    try {
      const body = parse(translationsBody, request.body);
      const id = legacyIdOf("Product", request.params.id);
      const product = id === undefined ? undefined : store.product(id);
      if (!product) throw new AdminError(404, `product ${request.params.id} does not exist`);
      ctx.app.translate(`gid://shopify/Product/${product.id}`, body.locale, body.values);
      return { product_id: product.id, locale: body.locale, translations: ctx.app.translations(`gid://shopify/Product/${product.id}`, body.locale) };
    } catch (error) {
      return fail(reply, error);
    }
  });

  app.post<{ Params: { id: string } }>("/admin/products/:id", async (request, reply) => {
    try {
      const body = parse(productBody, request.body ?? {});
      const id = legacyIdOf("Product", request.params.id);
      const product = id === undefined ? undefined : store.product(id);
      if (!product) throw new AdminError(404, `product ${request.params.id} does not exist`);
      if (body.title !== undefined) product.title = body.title;
      if (body.status !== undefined) product.status = body.status;
      if (body.tags !== undefined) product.tags = [...new Set(splitTags(body.tags))].sort((a, b) => a.localeCompare(b));
      store.touchProduct(product);
      const webhookId = ctx.events.productUpdated(product);
      return { product: productPayload(store, product), webhook_id: webhookId };
    } catch (error) {
      return fail(reply, error);
    }
  });
}
