import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import type { Context } from "../context.ts";
import type { Customer } from "../model.ts";
import { customersDataRequestPayload, customersRedactPayload, shopPayload, shopRedactPayload } from "../webhooks/app-payloads.ts";
import { AdminError } from "./errors.ts";

const customerBody = z.strictObject({
  /** A customer of the store; email and phone, when given, replace theirs (a request about a contact the store no longer has). */
  customer_id: z.number().int().positive(),
  email: z.string().nullable().optional(),
  phone: z.string().nullable().optional(),
  orders: z.array(z.number().int().positive()).default([]),
});

function parsed<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw new AdminError(400, result.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; "));
  return result.data;
}

function customerOf(ctx: Context, body: z.output<typeof customerBody>): Customer {
  const known = ctx.store.customer(body.customer_id);
  if (!known) throw new AdminError(404, `customer ${body.customer_id} does not exist`);
  return { ...known, ...(body.email !== undefined ? { email: body.email } : {}), ...(body.phone !== undefined ? { phone: body.phone } : {}) };
}

function fail(reply: FastifyReply, error: unknown): FastifyReply {
  if (error instanceof AdminError) return reply.code(error.status).send({ error: error.message });
  throw error;
}

let nextDataRequestId = 9_000;

/**
 * The app's lifecycle as the merchant and Shopify drive it: uninstalling the app (its token is
 * revoked, app/uninstalled is sent) and the compliance webhooks Shopify sends on a customer's or
 * the shop's behalf, on demand. Reinstalling goes through the OAuth install (or, for a custom
 * app's token, `POST /admin/app/install`).
 */
export function registerAppLifecycleRoutes(app: FastifyInstance, ctx: Context): void {
  app.post("/admin/app/uninstall", () => {
    ctx.app.uninstall();
    return { installed: false, webhook_id: ctx.events.appEvent("app/uninstalled", shopPayload(ctx.shop, ctx.store.now())) };
  });

  app.post("/admin/app/install", () => {
    ctx.app.install();
    return { installed: true };
  });

  app.post<{ Params: { topic: string; action: string } }>("/admin/compliance/:topic/:action", async (request, reply) => {
    try {
      const topic = `${request.params.topic}/${request.params.action}`;
      if (topic === "shop/redact") {
        const payload = shopRedactPayload(ctx.shop);
        return { webhook_id: ctx.events.appEvent(topic, payload), payload };
      }
      if (topic !== "customers/data_request" && topic !== "customers/redact") throw new AdminError(404, `no compliance topic ${topic}`);
      const body = parsed(customerBody, request.body);
      const customer = customerOf(ctx, body);
      const payload =
        topic === "customers/redact" ? customersRedactPayload(ctx.shop, customer, body.orders) : customersDataRequestPayload(ctx.shop, customer, body.orders, nextDataRequestId++);
      return { webhook_id: ctx.events.appEvent(topic, payload), payload };
    } catch (error) {
      return fail(reply, error);
    }
  });
}
