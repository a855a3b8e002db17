import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type pg from "pg";
import { isUuid } from "../actions/back_in_stock/signups/model.ts";
import { unsubscribeSignup } from "../actions/back_in_stock/signups/unsubscribe.ts";
import { UNSUBSCRIBE_PATH, verifyUnsubscribe } from "../actions/back_in_stock/signups/unsubscribe-link.ts";

export interface UnsubscribeRouteOptions {
  pool: pg.Pool;
  /** The secret the links are signed with (see unsubscribe-link.ts). */
  secret: string;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}</style>
</head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>
`;
}

function send(reply: FastifyReply, status: number, title: string, message: string): FastifyReply {
  return reply
    .code(status)
    .header("content-type", "text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .header("referrer-policy", "no-referrer")
    .header("x-robots-tag", "noindex")
    .send(page(title, message));
}

/**
 * `GET /back_in_stock/unsubscribe?signup=<id>&sig=<signature>`: the signed link in every
 * back-in-stock message. No API key: the signature is the authority. Unsubscribes the signup
 * and answers a small HTML page; idempotent. The same URL also takes POST, for one-click
 * unsubscribe from mail clients (RFC 8058 `List-Unsubscribe-Post`).
 */
export async function unsubscribeRoutes(app: FastifyInstance, options: UnsubscribeRouteOptions): Promise<void> {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const query = (request.query ?? {}) as Record<string, unknown>;
    const signup = typeof query.signup === "string" ? query.signup : undefined;
    const sig = typeof query.sig === "string" ? query.sig : undefined;
    if (!signup || !sig || !isUuid(signup)) {
      return send(reply, 400, "Invalid link", "This unsubscribe link is incomplete. Please use the link from your latest message.");
    }
    if (!verifyUnsubscribe(options.secret, signup, sig)) {
      return send(reply, 403, "Invalid link", "This unsubscribe link is not valid. Please use the link from your latest message.");
    }
    const row = await unsubscribeSignup(options.pool, null, signup);
    let what = "this product";
    if (row) {
      const { rows } = await options.pool.query<{ product: string | null; variant: string | null }>(
        `select p.title as product, v.title as variant
         from variants v left join products p on p.shop_id = v.shop_id and p.id = v.product_id
         where v.shop_id = $1 and v.id = $2`,
        [row.shop_id, row.variant_id],
      );
      const names = rows[0];
      if (names?.product) what = names.variant && names.variant !== "Default Title" ? `${names.product} (${names.variant})` : names.product;
    }
    return send(reply, 200, "You are unsubscribed", `You will not receive any more back-in-stock alerts for ${what}.`);
  };
  app.get(UNSUBSCRIBE_PATH, handler);
  app.post(UNSUBSCRIBE_PATH, handler);
}
