import type { FastifyInstance } from "fastify";
import type { Context } from "../context.ts";
import { signProxyQuery } from "./signature.ts";

export interface AppProxyOptions {
  ctx: Context;
  proxy: { url: string; secret: string; path: string };
}

/** Request headers the proxy passes on; others (cookies above all) stay with the store. */
const FORWARDED_HEADERS = ["content-type", "accept", "accept-language", "user-agent"];

/**
 * The app proxy: `<path>/<rest>` on the store is forwarded to `<url>/<rest>`, its query with the
 * platform's parameters added (`shop`, `logged_in_customer_id`, `path_prefix`, `timestamp`) and
 * signed (`signature`), the shopper's address in X-Forwarded-For, cookies not passed on. The
 * app's answer comes back as it is. Registered in its own scope: the body goes on unparsed.
 */
export async function registerAppProxy(app: FastifyInstance, options: AppProxyOptions): Promise<void> {
  const { ctx, proxy } = options;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

  app.all(`${proxy.path}/*`, async (request, reply) => {
    const [pathname = "", search = ""] = request.url.split("?");
    const rest = pathname.slice(proxy.path.length);
    const query = new URLSearchParams(search);
    for (const name of ["shop", "logged_in_customer_id", "path_prefix", "timestamp", "signature"]) query.delete(name);
    const customer = /(?:^|;\s*)customer_id=(\d+)/.exec(request.headers.cookie ?? "")?.[1] ?? "";
    query.set("shop", ctx.shop.domain);
    query.set("logged_in_customer_id", customer);
    query.set("path_prefix", proxy.path);
    query.set("timestamp", String(Math.floor(Date.now() / 1000)));
    query.set("signature", signProxyQuery(proxy.secret, query));
    const headers: Record<string, string> = { "x-forwarded-for": request.ip };
    for (const name of FORWARDED_HEADERS) {
      const value = request.headers[name];
      if (typeof value === "string") headers[name] = value;
    }
    const hasBody = request.method !== "GET" && request.method !== "HEAD";
    let answer: Response;
    try {
      answer = await fetch(`${proxy.url.replace(/\/$/, "")}${rest}?${query.toString()}`, {
        method: request.method,
        headers,
        ...(hasBody && Buffer.isBuffer(request.body) ? { body: request.body } : {}),
        signal: AbortSignal.timeout(10_000),
      });
    } catch {
      return reply.code(502).type("text/plain").send("The app did not answer");
    }
    const type = answer.headers.get("content-type");
    if (type) void reply.type(type);
    return reply.code(answer.status).send(Buffer.from(await answer.arrayBuffer()));
  });
}
