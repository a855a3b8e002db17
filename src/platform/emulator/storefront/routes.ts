import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import querystring from "node:querystring";
import { checkoutChargeCents, createOrder } from "../admin/orders.ts";
import { AdminError } from "../admin/errors.ts";
import type { Context } from "../context.ts";
import { gid, legacyIdOf } from "../ids.ts";
import type { Market } from "../model.ts";
import { type Cart, CartError, Carts, addItem, cartJson, changeLine } from "./cart.ts";
import { liquidPage, liquidProduct, liquidShop } from "./liquid-objects.ts";
import { DEFAULT_PROXY_SUBPATH, type StorefrontOptions } from "./options.ts";
import { registerAppProxy } from "./proxy.ts";
import { productTemplate, renderPage } from "./theme.ts";
import { validateCart } from "./validation.ts";

/** A locale path prefix: `/fr/products/...`, `/fr-CA/products/...`. */
const LOCALE = /^[a-z]{2}(?:-[A-Za-z]{2})?$/;
const MAX_CARDS = 48;

function cookies(request: FastifyRequest): Record<string, string> {
  const found: Record<string, string> = {};
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (!name) continue;
    try {
      found[name] = decodeURIComponent(rest.join("="));
    } catch {
      // a malformed cookie is no cookie
    }
  }
  return found;
}

function setCookie(reply: FastifyReply, name: string, value: string): void {
  void reply.header("set-cookie", `${name}=${encodeURIComponent(value)}; Path=/; HttpOnly; SameSite=Lax`);
}

function wantsJson(request: FastifyRequest): boolean {
  return (request.headers["content-type"] ?? "").includes("application/json") || (request.headers.accept ?? "").includes("application/json");
}

/** The locale of a page: its path prefix (`/fr/products/...`), else `?locale=`, else en. */
function pageLocale(request: FastifyRequest, prefix: string | undefined): string {
  const query = request.query as Record<string, string | undefined>;
  return prefix ?? query.locale ?? "en";
}

/** The market of the page: `?country=` (kept in a cookie for the checkout), else the cookie's, else the primary market. */
function pageMarket(ctx: Context, request: FastifyRequest, reply: FastifyReply): Market | undefined {
  const query = request.query as Record<string, string | undefined>;
  const country = (query.country ?? cookies(request).country ?? "").toUpperCase();
  if (query.country) setCookie(reply, "country", country);
  const markets = ctx.store.markets.filter((m) => m.enabled);
  return markets.find((m) => country !== "" && m.countryCodes.includes(country)) ?? markets.find((m) => m.primary) ?? markets[0];
}

export interface StorefrontDeps {
  ctx: Context;
  options: StorefrontOptions;
  /** Called after a change the state file should keep (an order). */
  changed?: () => void;
}

/**
 * The online store: product and collection pages rendered by the theme (theme.ts) with the app
 * embed, the cart (cookie `cart`, the Ajax API's `/cart/add.js`, `/cart.js`, `/cart/change.js`),
 * a checkout that runs the app's validation (validation.ts) and creates the order with each line's
 * selling plan, charging what each plan's checkout charge says (a deposit plan part of the price,
 * the rest outstanding; a full-payment plan or no plan all of it) (orders/create to the app as
 * any order), and the app proxy (proxy.ts).
 */
export function registerStorefront(app: FastifyInstance, deps: StorefrontDeps): void {
  const { ctx, options } = deps;
  const carts = new Carts();
  const proxyPath = `/apps/${options.appProxy?.subpath ?? DEFAULT_PROXY_SUBPATH}`;

  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_request, body, done) => {
    done(null, querystring.parse(String(body)));
  });

  /** The Liquid objects of the page that the app embed reads beside `product`: `request`, `localization`, `template`. */
  const embed = (request: FastifyRequest, reply: FastifyReply, locale: string, template: string) => {
    const market = pageMarket(ctx, request, reply);
    return liquidPage({ locale, marketId: market ? gid("Market", market.id) : null, template });
  };
  // Liquid's `cart` is on every page (its `currency` the presentment currency: the shop's here, which has one).
  const page = (scope: Record<string, unknown>) => ({
    shop: liquidShop(ctx),
    app_embed_url: options.appEmbedUrl ?? null,
    ...scope,
    cart: { items: [], ...(scope.cart as Record<string, unknown> | undefined), currency: { iso_code: ctx.shop.currencyCode } },
  });
  const cartOf = (request: FastifyRequest): Cart | undefined => carts.get(cookies(request).cart);
  const openCart = (request: FastifyRequest, reply: FastifyReply): Cart => {
    const cart = carts.open(cookies(request).cart);
    setCookie(reply, "cart", cart.token);
    return cart;
  };

  const productPage = async (request: FastifyRequest<{ Params: { handle: string; locale?: string } }>, reply: FastifyReply) => {
    const product = ctx.store.products.find((p) => p.handle === request.params.handle && p.status === "ACTIVE");
    if (!product || (request.params.locale !== undefined && !LOCALE.test(request.params.locale))) return reply.code(404).type("text/html").send("<h1>Not found</h1>");
    const liquid = liquidProduct(ctx, product);
    const query = request.query as Record<string, string | undefined>;
    const variant = liquid.variants.find((v) => String(v.id) === query.variant) ?? liquid.variants[0];
    const locale = pageLocale(request, request.params.locale);
    // `?view=<suffix>`: the theme's alternate template product.<suffix>, when it has one.
    const html = await renderPage(productTemplate(query.view), page({ title: product.title, locale, product: liquid, variant, ...embed(request, reply, locale, "product") }));
    return reply.type("text/html; charset=utf-8").send(html);
  };
  app.get("/products/:handle", productPage);
  app.get("/:locale/products/:handle", productPage);

  const collectionPage = async (request: FastifyRequest<{ Params: { handle: string; locale?: string } }>, reply: FastifyReply) => {
    const collection = ctx.store.collections.find((c) => c.handle === request.params.handle);
    if (!collection || (request.params.locale !== undefined && !LOCALE.test(request.params.locale))) return reply.code(404).type("text/html").send("<h1>Not found</h1>");
    const products = ctx.store.products.filter((p) => p.status === "ACTIVE" && p.collectionIds.includes(collection.id)).slice(0, MAX_CARDS);
    const cards = products.map((p) => ({ url: `/products/${p.handle}`, title: p.title, price: ctx.store.variantsOf(p)[0]?.priceCents ?? 0 }));
    const locale = pageLocale(request, request.params.locale);
    const scope = { title: collection.title, locale, collection: { title: collection.title, products: products.map((p) => liquidProduct(ctx, p)) }, cards };
    const html = await renderPage("collection", page({ ...scope, ...embed(request, reply, locale, "collection") }));
    return reply.type("text/html; charset=utf-8").send(html);
  };
  app.get("/collections/:handle", collectionPage);
  app.get("/:locale/collections/:handle", collectionPage);

  const cartError = (reply: FastifyReply, error: unknown) => {
    if (error instanceof CartError) return reply.code(error.status).send({ status: error.status, message: "Cart Error", description: error.description });
    throw error;
  };

  app.post("/cart/add.js", async (request, reply) => {
    const body = (request.body ?? {}) as { items?: unknown[] } & Record<string, unknown>;
    const cart = openCart(request, reply);
    const items = Array.isArray(body.items) ? (body.items as Record<string, unknown>[]) : [body];
    const before = cart.lines.map((l) => ({ ...l }));
    try {
      const lines = items.map((item) => addItem(ctx, cart, item));
      const json = cartJson(ctx, cart).items as { key: string }[];
      const added = json.filter((item) => lines.some((l) => l.key === item.key));
      return Array.isArray(body.items) ? { items: added } : added[0];
    } catch (error) {
      // All or nothing, as the platform adds a request's items.
      cart.lines = before;
      return cartError(reply, error);
    }
  });

  // The theme's form without script: add, then the cart page.
  app.post("/cart/add", async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const cart = openCart(request, reply);
    try {
      addItem(ctx, cart, body);
    } catch (error) {
      if (error instanceof CartError) return reply.code(error.status).type("text/html").send(`<p class="errors">${error.description.replace(/</g, "&lt;")}</p>`);
      throw error;
    }
    return reply.redirect("/cart", 303);
  });

  app.get("/cart.js", async (request, reply) => {
    const cart = cartOf(request) ?? openCart(request, reply);
    return cartJson(ctx, cart);
  });

  app.post("/cart/change.js", async (request, reply) => {
    const cart = openCart(request, reply);
    try {
      changeLine(ctx, cart, request.body ?? {});
    } catch (error) {
      return cartError(reply, error);
    }
    return cartJson(ctx, cart);
  });

  app.get("/cart", async (request, reply) => {
    const cart = cartOf(request) ?? openCart(request, reply);
    const html = await renderPage("cart", page({ title: "Cart", locale: "en", cart: cartJson(ctx, cart), errors: [], ...embed(request, reply, "en", "cart") }));
    return reply.type("text/html; charset=utf-8").send(html);
  });

  app.post("/checkout", async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const cart = cartOf(request);
    const json = wantsJson(request);
    const refuse = async (status: number, errors: { localizedMessage: string; target: string }[]) => {
      if (json) return reply.code(status).send({ errors });
      const html = await renderPage("cart", page({ title: "Cart", locale: "en", cart: cart ? cartJson(ctx, cart) : { items: [] }, errors, ...embed(request, reply, "en", "cart") }));
      return reply.code(status).type("text/html; charset=utf-8").send(html);
    };
    if (!cart || cart.lines.length === 0) return refuse(422, [{ localizedMessage: "Your cart is empty.", target: "$.cart" }]);
    const market = pageMarket(ctx, request, reply);
    const email = typeof body.email === "string" && body.email !== "" ? body.email : undefined;
    const signedIn = legacyIdOf("Customer", cookies(request).customer_id);
    // The signed-in customer is the buyer identity's customer, which the validation reads.
    const customerId = signedIn !== undefined && ctx.store.customer(signedIn) ? signedIn : null;
    const errors = validateCart(ctx, cart, { marketId: market?.id ?? null, purchasingCompany: typeof body.company === "string" && body.company.trim() !== "", customerId });
    if (errors.length > 0) return refuse(422, errors);
    // What each line's plan charges now: the whole price paid, or part of it with the rest outstanding.
    const lineCharges = cart.lines.map((l) => {
      const variant = ctx.store.variant(l.variantId);
      const priceCents = variant?.priceCents ?? 0;
      return { total: priceCents * l.quantity, charged: checkoutChargeCents(ctx, { priceCents, quantity: l.quantity, sellingPlanId: l.sellingPlanId }) };
    });
    const charged = lineCharges.reduce((sum, l) => sum + l.charged, 0);
    const partly = charged < lineCharges.reduce((sum, l) => sum + l.total, 0);
    try {
      const { order } = createOrder(ctx, {
        line_items: cart.lines.map((l) => ({ variant_id: l.variantId, quantity: l.quantity, properties: l.properties, ...(l.sellingPlanId === null ? {} : { selling_plan_id: l.sellingPlanId }) })),
        ...(partly ? { financial_status: "partially_paid" as const, amount_paid: (charged / 100).toFixed(2) } : { financial_status: "paid" as const }),
        ...(email ? { email } : {}),
        ...(customerId !== null ? { customer_id: customerId } : {}),
      });
      carts.clear(cart);
      deps.changed?.();
      if (json) return reply.code(201).send({ order: { id: gid("Order", order.id), name: order.name } });
      const html = await renderPage("thank_you", page({ title: "Thank you", locale: "en", order: { name: order.name }, ...embed(request, reply, "en", "thank_you") }));
      return reply.type("text/html; charset=utf-8").send(html);
    } catch (error) {
      if (error instanceof AdminError) return refuse(422, [{ localizedMessage: error.message, target: "$.cart" }]);
      throw error;
    }
  });

  // A shopper's customer account, as far as the app proxy and the checkout need it: the signed-in
  // customer (a `customer_id` cookie) is the proxy's logged_in_customer_id and the order's customer.
  app.get("/account/login", async (request, reply) => {
    const wanted = legacyIdOf("Customer", (request.query as Record<string, string | undefined>).customer_id);
    const customer = wanted === undefined ? undefined : ctx.store.customer(wanted);
    if (!customer) return reply.code(404).type("text/html").send("<h1>No such customer</h1>");
    setCookie(reply, "customer_id", String(customer.id));
    return reply.redirect("/cart", 303);
  });
  app.get("/account/logout", async (_request, reply) => {
    void reply.header("set-cookie", "customer_id=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax");
    return reply.redirect("/cart", 303);
  });

  if (options.appProxy) void app.register(registerAppProxy, { ctx, proxy: { ...options.appProxy, path: proxyPath } });
}
