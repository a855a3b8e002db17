import type { FastifyInstance } from "fastify";
import { type WidgetBundle, widgetBundle } from "../storefront/widget-bundle.ts";
import { STOREFRONT_PREFIX } from "./storefront.ts";

/**
 * `GET /storefront/widget.js`: the storefront widget, loaded by the theme's app embed on the shop's
 * pages. Public (no key, no signature: a script tag sends neither), the same for every shop. Each
 * shop's page asks for it on every view, so browsers keep it for five minutes and then revalidate
 * with its ETag (304 while unchanged); a new deploy reaches pages within that.
 */
export const WIDGET_PATH = `${STOREFRONT_PREFIX}/widget.js`;
const MAX_AGE_SECONDS = 300;

export async function widgetRoutes(app: FastifyInstance, options: { bundle?: () => Promise<WidgetBundle> }): Promise<void> {
  const bundle = options.bundle ?? widgetBundle;
  app.get(WIDGET_PATH, async (request, reply) => {
    const { code, etag } = await bundle();
    void reply.header("etag", etag).header("cache-control", `public, max-age=${MAX_AGE_SECONDS}`).header("access-control-allow-origin", "*");
    const seen = request.headers["if-none-match"];
    if (seen !== undefined && seen.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag)) return reply.code(304).send();
    return reply.type("application/javascript; charset=utf-8").send(code);
  });
}
