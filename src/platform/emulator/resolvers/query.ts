import type { Context } from "../context.ts";
import { type Source, byId, byIndex, paginate } from "../connection.ts";
import type { Collection, Order, Product, Variant } from "../model.ts";
import { type FieldFilter, compileSearch } from "../search.ts";
import { SHOP_ID } from "../ids.ts";
import { marketCountries } from "./catalog.ts";
import { findNode, findTyped } from "./nodes.ts";
import type { ConnectionArgs, IdArgs, Resolvers, SearchArgs } from "./types.ts";

/** The platform's limit on `nodes(ids:)`. */
const MAX_NODES = 250;

const productFields: Record<string, FieldFilter<Product>> = {
  updated_at: { kind: "time", get: (p) => p.updatedAt },
  created_at: { kind: "time", get: (p) => p.createdAt },
  id: { kind: "id", type: "Product", get: (p) => p.id },
  status: { kind: "text", get: (p) => p.status },
  tag: { kind: "tags", get: (p) => p.tags },
  product_type: { kind: "text", get: (p) => p.productType },
  vendor: { kind: "text", get: (p) => p.vendor },
  handle: { kind: "text", get: (p) => p.handle },
};

const variantFields: Record<string, FieldFilter<Variant>> = {
  updated_at: { kind: "time", get: (v) => v.updatedAt },
  created_at: { kind: "time", get: (v) => v.createdAt },
  id: { kind: "id", type: "ProductVariant", get: (v) => v.id },
  product_id: { kind: "id", type: "Product", get: (v) => v.productId },
  sku: { kind: "text", get: (v) => v.sku },
};

const collectionFields: Record<string, FieldFilter<Collection>> = {
  updated_at: { kind: "time", get: (c) => c.updatedAt },
  id: { kind: "id", type: "Collection", get: (c) => c.id },
  title: { kind: "text", get: (c) => c.title },
  handle: { kind: "text", get: (c) => c.handle },
};

const orderFields: Record<string, FieldFilter<Order>> = {
  updated_at: { kind: "time", get: (o) => o.updatedAt },
  created_at: { kind: "time", get: (o) => o.createdAt },
  id: { kind: "id", type: "Order", get: (o) => o.id },
  customer_id: { kind: "id", type: "Customer", get: (o) => o.customerId ?? 0 },
  financial_status: { kind: "text", get: (o) => o.financialStatus },
  fulfillment_status: { kind: "text", get: (o) => o.fulfillmentStatus ?? "unfulfilled" },
  email: { kind: "text", get: (o) => o.email },
  tag: { kind: "tags", get: (o) => o.tags },
};

/** Products by title: ranked positions stand in for the sort value, as cursors carry numbers. */
function productsByTitle(products: readonly Product[]): Source<Product> {
  const order = products.map((_, i) => i).sort((a, b) => (products[a]?.title ?? "").localeCompare(products[b]?.title ?? "") || a - b);
  return {
    length: order.length,
    at: (i) => products[order[i] ?? -1] as Product,
    key: (i) => ({ lastId: (products[order[i] ?? -1] as Product).id, lastValue: i }),
  };
}

function productSource(ctx: Context, sortKey: string | null | undefined): Source<Product> {
  if (sortKey === "UPDATED_AT") return byIndex(ctx.store.products, ctx.store.productsByUpdated(), (p) => p.updatedAt);
  if (sortKey === "TITLE") return productsByTitle(ctx.store.products);
  return byId(ctx.store.products);
}

/** Variants ascend by id: the platform's ProductVariantSortKeys has no UPDATED_AT. */
function variantSource(ctx: Context): Source<Variant> {
  return byId(ctx.store.variants);
}

function orderSource(orders: readonly Order[], sortKey: string | null | undefined): Source<Order> {
  if (sortKey !== "UPDATED_AT" && sortKey !== "CREATED_AT") return byId(orders);
  const value = sortKey === "UPDATED_AT" ? (o: Order) => o.updatedAt : (o: Order) => o.createdAt;
  const order = Int32Array.from(orders.keys()).sort((a, b) => value(orders[a] as Order) - value(orders[b] as Order) || a - b);
  return byIndex(orders, order, value);
}

/**
 * A root count as the platform answers it: at most `limit` (default 10,000; null: none), `AT_LEAST`
 * when the limit was reached and cut the count, else `EXACT`.
 */
function countOf<T>(rows: readonly T[], limit: number | null | undefined, keep?: (row: T) => boolean): { count: number; precision: "EXACT" | "AT_LEAST" } {
  const cap = limit === undefined ? 10_000 : limit;
  let count = 0;
  for (const row of rows) {
    if (keep && !keep(row)) continue;
    count += 1;
    if (cap !== null && count > cap) return { count: cap, precision: "AT_LEAST" };
  }
  return { count, precision: "EXACT" };
}

export const queryResolvers: Resolvers = {
  QueryRoot: {
    node: (_: unknown, args: IdArgs, ctx: Context) => findNode(ctx.store, args.id),
    nodes: (_: unknown, args: { ids: string[] }, ctx: Context) => {
      if (args.ids.length > MAX_NODES) throw new Error(`The ids argument accepts at most ${MAX_NODES} ids (got ${args.ids.length})`);
      return args.ids.map((id) => findNode(ctx.store, id));
    },
    shop: (_: unknown, __: unknown, ctx: Context) => ({ id: SHOP_ID, name: ctx.shop.name, myshopifyDomain: ctx.shop.domain, currencyCode: ctx.shop.currencyCode }),
    products: (_: unknown, args: SearchArgs, ctx: Context) =>
      paginate(productSource(ctx, args.sortKey), args, compileSearch(args.query, productFields)),
    product: (_: unknown, args: IdArgs, ctx: Context) => findTyped(ctx.store, args.id, "Product"),
    productVariants: (_: unknown, args: SearchArgs, ctx: Context) =>
      paginate(variantSource(ctx), args, compileSearch(args.query, variantFields)),
    productVariant: (_: unknown, args: IdArgs, ctx: Context) => findTyped(ctx.store, args.id, "ProductVariant"),
    // The schema says of productVariantsCount's query: "No supported search fields"; productsCount takes the products' search.
    productsCount: (_: unknown, args: { query?: string | null; limit?: number | null }, ctx: Context) =>
      countOf(ctx.store.products, args.limit, compileSearch(args.query, productFields)),
    productVariantsCount: (_: unknown, args: { limit?: number | null }, ctx: Context) => countOf(ctx.store.variants, args.limit),
    collections: (_: unknown, args: SearchArgs, ctx: Context) => paginate(byId(ctx.store.collections), args, compileSearch(args.query, collectionFields)),
    locations: (_: unknown, args: ConnectionArgs & { includeInactive?: boolean | null }, ctx: Context) =>
      paginate(byId(ctx.store.locations), args, args.includeInactive ? undefined : (l) => l.isActive),
    location: (_: unknown, args: IdArgs, ctx: Context) => findTyped(ctx.store, args.id, "Location"),
    markets: (_: unknown, args: ConnectionArgs, ctx: Context) => paginate(byId(ctx.store.markets), args),
    // The region a visitor no market matches is sold to: the primary market's first country.
    backupRegion: (_: unknown, __: unknown, ctx: Context) => {
      const primary = ctx.store.markets.find((m) => m.primary) ?? ctx.store.markets[0];
      return (primary && marketCountries(primary)[0]) ?? { kind: "MarketRegionCountry", id: 1, code: "US", name: "United States" };
    },
    customer: (_: unknown, args: IdArgs, ctx: Context) => findTyped(ctx.store, args.id, "Customer"),
    orders: (_: unknown, args: SearchArgs, ctx: Context) =>
      paginate(orderSource(ctx.store.orders, args.sortKey), args, compileSearch(args.query, orderFields)),
    order: (_: unknown, args: IdArgs, ctx: Context) => findTyped(ctx.store, args.id, "Order"),
    sellingPlanGroup: (_: unknown, args: IdArgs, ctx: Context) => findTyped(ctx.store, args.id, "SellingPlanGroup"),
    sellingPlanGroups: (_: unknown, args: ConnectionArgs, ctx: Context) => paginate(byId([...ctx.store.sellingPlanGroups.values()]), args),
  },
};
