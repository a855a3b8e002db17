import Fastify, { type FastifyInstance } from "fastify";
import { registerAdminRoutes } from "./admin/routes.ts";
import { servedApiVersion } from "./api-versions.ts";
import type { Context } from "./context.ts";
import type { GraphqlEndpoint } from "./graphql-endpoint.ts";
import { type OAuthAppOptions, registerOAuth } from "./oauth/routes.ts";
import { NOT_FOUND_BODY } from "./shopify-errors.ts";
import { registerPointOfSale } from "./pos/routes.ts";
import type { StorefrontOptions } from "./storefront/options.ts";
import { registerStorefront } from "./storefront/routes.ts";

export { ADMIN_API_VERSION as API_VERSION } from "../api-version.ts";

/** Large enough for 250-id mutations with long gids, as on the platform. */
const BODY_LIMIT = 2 * 1024 * 1024;

/**
 * The emulator's HTTP surface: the Admin GraphQL endpoint (the API versions Shopify serves, named
 * back in `X-Shopify-API-Version`; any other path answered 404) and the admin routes.
 * `onAdminWrite` is called after each admin route that may change the state (any but GET), and
 * after an order placed through the online store's checkout or the point of sale's. The online
 * store (storefront/) has its pages, cart, checkout and app proxy; the point of sale (pos/) its
 * checkout at a retail location; oauth/ the app's install.
 */
export function buildServer(
  endpoint: GraphqlEndpoint,
  context: Context,
  onAdminWrite?: () => void,
  storefront: StorefrontOptions = {},
  oauth?: { app: OAuthAppOptions; accessToken: string },
): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT });
  // The platform also takes a bare query with this content type.
  app.addContentTypeParser("application/graphql", { parseAs: "string" }, (_request, body, done) => done(null, { query: body }));

  app.post<{ Params: { version: string } }>("/admin/api/:version/graphql.json", async (request, reply) => {
    const version = servedApiVersion(request.params.version);
    if (!version) return reply.code(404).send(NOT_FOUND_BODY);
    void reply.header("x-shopify-api-version", version);
    const token = request.headers["x-shopify-access-token"];
    // An uninstalled app's token is revoked: the endpoint answers it as it answers any wrong token.
    const answer = await endpoint.handle(typeof token === "string" && context.app.isInstalled() ? token : undefined, request.body);
    if (typeof answer.body === "string") return reply.code(answer.status).type("text/plain; charset=utf-8").send(answer.body);
    return reply.code(answer.status).send(answer.body);
  });

  // In its own scope, so the hook sees the admin routes only.
  void app.register(async (admin) => {
    if (onAdminWrite) {
      admin.addHook("onResponse", async (request) => {
        if (request.method !== "GET" && request.method !== "HEAD") onAdminWrite();
      });
    }
    registerAdminRoutes(admin, context);
  });
  // In its own scope too: its body parsers (forms, the app proxy's raw bodies) are the store's only.
  void app.register(async (store) => registerStorefront(store, { ctx: context, options: storefront, ...(onAdminWrite ? { changed: onAdminWrite } : {}) }));
  // The app's install (oauth/): authorize and the token endpoint, when the app's credentials are given.
  if (oauth) void app.register(async (scope) => registerOAuth(scope, { ctx: context, ...oauth, ...(onAdminWrite ? { changed: onAdminWrite } : {}) }));
  // The point of sale (pos/): its checkout at a retail location, with the app's POS extension.
  void app.register(async (pos) => registerPointOfSale(pos, { ctx: context, ...(onAdminWrite ? { changed: onAdminWrite } : {}) }));
  return app;
}
