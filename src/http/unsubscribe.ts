import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type pg from "pg";
import { isUuid } from "../core/params.ts";
import { unsubscribeSignup } from "../back_in_stock/signups/actions/unsubscribe.ts";
import { UNSUBSCRIBE_PATH, verifyUnsubscribe } from "../back_in_stock/signups/unsubscribe-link.ts";

interface UnsubscribeRouteOptions {
  pool: pg.Pool;
  /** The secret the links are signed with (see unsubscribe-link.ts). */
  secret: string;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A small page; `form` is the confirmation form's target, when the page asks for one. */
function page(title: string, message: string, form?: string): string {
  const confirm = form
    ? `<form method="post" action="${escapeHtml(form)}"><button type="submit" name="confirm" value="yes">Unsubscribe</button></form>`
    : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}button{font:inherit;padding:.5rem 1rem}</style>
</head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${confirm}</body></html>
`;
}

function send(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .header("content-type", "text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .header("referrer-policy", "no-referrer")
    .header("x-robots-tag", "noindex")
    .send(html);
}

/** The product a signup waits for, as the customer knows it; "this product" when it is gone. */
async function productName(pool: pg.Pool, signupId: string): Promise<string> {
  const { rows } = await pool.query<{ product: string | null; variant: string | null }>(
    `select p.title as product, v.title as variant
     from bis_signups s
     join variants v on v.shop_id = s.shop_id and v.id = s.variant_id
     left join products p on p.shop_id = v.shop_id and p.id = v.product_id
     where s.id = $1`,
    [signupId],
  );
  const names = rows[0];
  if (!names?.product) return "this product";
  return names.variant && names.variant !== "Default Title" ? `${names.product} (${names.variant})` : names.product;
}

/**
 * `/back_in_stock/unsubscribe?signup=<id>&sig=<signature>`: the signed link in every
 * back-in-stock message. No API key: the signature is the authority. GET only asks: link
 * scanners and mail previews open links, and must not unsubscribe anyone. POST unsubscribes
 * (idempotent): the confirmation form's button, and RFC 8058 one-click from mail clients
 * (`List-Unsubscribe-Post: List-Unsubscribe=One-Click`), whose body needs no reading.
 */
export async function unsubscribeRoutes(app: FastifyInstance, options: UnsubscribeRouteOptions): Promise<void> {
  /** The signed signup id of a valid link; otherwise the error page has been sent. */
  const signedSignup = (request: FastifyRequest, reply: FastifyReply): string | undefined => {
    const query = (request.query ?? {}) as Record<string, unknown>;
    const signup = typeof query.signup === "string" ? query.signup : undefined;
    const sig = typeof query.sig === "string" ? query.sig : undefined;
    if (!signup || !sig || !isUuid(signup)) {
      void send(reply, 400, page("Invalid link", "This unsubscribe link is incomplete. Please use the link from your latest message."));
      return undefined;
    }
    if (!verifyUnsubscribe(options.secret, signup, sig)) {
      void send(reply, 403, page("Invalid link", "This unsubscribe link is not valid. Please use the link from your latest message."));
      return undefined;
    }
    return signup;
  };

  app.get(UNSUBSCRIBE_PATH, async (request, reply) => {
    const signup = signedSignup(request, reply);
    if (!signup) return reply;
    const what = await productName(options.pool, signup);
    // The form posts back to this very link (path and signed query), relative to wherever the service is mounted.
    const target = `?${new URLSearchParams({ signup, sig: (request.query as { sig: string }).sig }).toString()}`;
    return send(reply, 200, page("Unsubscribe from back-in-stock alerts?", `You will not receive any more back-in-stock alerts for ${what}.`, target));
  });

  app.post(UNSUBSCRIBE_PATH, async (request, reply) => {
    const signup = signedSignup(request, reply);
    if (!signup) return reply;
    await unsubscribeSignup(options.pool, null, signup);
    const what = await productName(options.pool, signup);
    return send(reply, 200, page("You are unsubscribed", `You will not receive any more back-in-stock alerts for ${what}.`));
  });
}
