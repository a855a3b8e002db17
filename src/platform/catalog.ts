import { z } from "zod";
import type { PlatformClient } from "./client.ts";
import { type Connection, connectionSchema, paginate } from "./paginate.ts";

/** What the mirror stores, as plain records; the queries below fetch exactly these fields. */
export interface ProductRecord {
  id: string;
  title: string;
  handle: string;
  status: string;
  tags: string[];
  vendor: string | null;
  productType: string | null;
  collectionIds: string[];
  updatedAt: string;
}

export interface VariantRecord {
  id: string;
  legacyId: number;
  productId: string;
  title: string;
  sku: string | null;
  price: string;
  inventoryPolicy: string;
  inventoryItemId: string;
  updatedAt: string;
}

export interface InventoryLevelRecord {
  inventoryItemId: string;
  locationId: string;
  available: number;
  updatedAt: string;
}

export interface LocationRecord {
  id: string;
  name: string;
  active: boolean;
}

export interface MarketRecord {
  id: string;
  name: string;
  active: boolean;
  primary: boolean;
  countries: string[];
  locationIds: string[];
}

export interface CollectionRecord {
  id: string;
  title: string;
  handle: string;
  updatedAt: string;
}

/** The numeric tail of a gid (`gid://shopify/ProductVariant/42` → 42). */
function legacyId(gid: string): number {
  const tail = Number(gid.slice(gid.lastIndexOf("/") + 1));
  if (!Number.isSafeInteger(tail)) throw new Error(`not a platform gid: ${gid}`);
  return tail;
}

/** Filter syntax shared with the platform's search: changes strictly after `since`. */
function updatedAfter(since: string | undefined): string | null {
  return since ? `updated_at:>'${since}'` : null;
}

interface PageOptions {
  /** Aborts paging between (and during) requests: a shutdown stops a long sync. */
  signal?: AbortSignal;
}

/** One connection's pages as mirror records, through the shared paginator. */
async function* pages<Raw, Out>(
  client: PlatformClient,
  query: { text: string; cost: number; pageSize: number },
  variables: Record<string, unknown>,
  select: (data: unknown) => Connection<Raw>,
  map: (raw: Raw) => Out,
  options: PageOptions = {},
): AsyncGenerator<Out[]> {
  // The query's requested cost is known from its shape, so pacing is right from the first page.
  const requestOptions = { estimatedCost: query.cost, ...(options.signal ? { signal: options.signal } : {}) };
  for await (const page of paginate(client, query.text, variables, select, query.pageSize, requestOptions)) yield page.map(map);
}

// Each document is exported: test/platform-client.test.ts validates every one against the schema.
export const PRODUCTS = `query MirrorProducts($first: Int!, $after: String, $query: String) {
  products(first: $first, after: $after, query: $query) {
    nodes { id title handle status tags vendor productType updatedAt collections(first: 5) { nodes { id } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

const productNode = z.object({
  id: z.string(),
  title: z.string(),
  handle: z.string(),
  status: z.string(),
  tags: z.array(z.string()),
  vendor: z.string().nullable(),
  productType: z.string().nullable(),
  updatedAt: z.string(),
  collections: z.object({ nodes: z.array(z.object({ id: z.string() })) }),
});

export function productPages(client: PlatformClient, since?: string, options?: PageOptions): AsyncGenerator<ProductRecord[]> {
  return pages(
    client,
    { text: PRODUCTS, cost: 2 + 100 * (1 + 2 + 5), pageSize: 100 },
    { query: updatedAfter(since) },
    (data) => z.object({ products: connectionSchema(productNode) }).parse(data).products,
    (p) => ({ ...p, collectionIds: p.collections.nodes.map((c) => c.id) }),
    options,
  );
}

/** The whole catalog's variant count, before paging it: a full sync's progress has its total from the start. */
export const VARIANTS_COUNT = `query MirrorVariantsCount {
  productVariantsCount(limit: null) { count precision }
}`;

/** How many variants the store has (productVariantsCount without its 10,000 cap): one request of cost 10. */
export async function variantCount(client: PlatformClient, options: PageOptions = {}): Promise<number> {
  const data = await client.request<unknown>(VARIANTS_COUNT, {}, { estimatedCost: 10, ...(options.signal ? { signal: options.signal } : {}) });
  const parsed = z.object({ productVariantsCount: z.object({ count: z.number().int().nonnegative(), precision: z.string() }).nullable() }).parse(data);
  if (!parsed.productVariantsCount) throw new Error("the platform answered no productVariantsCount");
  return parsed.productVariantsCount.count;
}

export const VARIANTS = `query MirrorVariants($first: Int!, $after: String, $query: String) {
  productVariants(first: $first, after: $after, query: $query) {
    nodes { id title sku price inventoryPolicy updatedAt product { id } inventoryItem { id } }
    pageInfo { hasNextPage endCursor }
  }
}`;

const variantNode = z.object({
  id: z.string(),
  title: z.string(),
  sku: z.string().nullable(),
  price: z.union([z.string(), z.number()]).transform(String),
  inventoryPolicy: z.string(),
  updatedAt: z.string(),
  product: z.object({ id: z.string() }),
  inventoryItem: z.object({ id: z.string() }),
});

export function variantPages(client: PlatformClient, since?: string, options?: PageOptions): AsyncGenerator<VariantRecord[]> {
  return pages(
    client,
    { text: VARIANTS, cost: 2 + 250 * 3, pageSize: 250 },
    { query: updatedAfter(since) },
    (data) => z.object({ productVariants: connectionSchema(variantNode) }).parse(data).productVariants,
    (v) => ({
      id: v.id,
      legacyId: legacyId(v.id),
      productId: v.product.id,
      title: v.title,
      sku: v.sku,
      price: v.price,
      inventoryPolicy: v.inventoryPolicy,
      inventoryItemId: v.inventoryItem.id,
      updatedAt: v.updatedAt,
    }),
    options,
  );
}

export const INVENTORY = `query MirrorInventory($location: ID!, $first: Int!, $after: String, $query: String) {
  location(id: $location) {
    inventoryLevels(first: $first, after: $after, query: $query) {
      nodes { updatedAt item { id } quantities(names: ["available"]) { name quantity } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

const levelNode = z.object({
  updatedAt: z.string(),
  item: z.object({ id: z.string() }),
  quantities: z.array(z.object({ name: z.string(), quantity: z.number() })),
});

export function inventoryPages(client: PlatformClient, locationId: string, since?: string, options?: PageOptions): AsyncGenerator<InventoryLevelRecord[]> {
  return pages(
    client,
    { text: INVENTORY, cost: 1 + 2 + 250 * 3, pageSize: 250 },
    { location: locationId, query: updatedAfter(since) },
    (data) => {
      const location = z.object({ location: z.object({ inventoryLevels: connectionSchema(levelNode) }).nullable() }).parse(data).location;
      return location?.inventoryLevels ?? { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } };
    },
    (l) => ({
      inventoryItemId: l.item.id,
      locationId,
      available: l.quantities.find((q) => q.name === "available")?.quantity ?? 0,
      updatedAt: l.updatedAt,
    }),
    options,
  );
}

export const LOCATIONS = `query MirrorLocations($first: Int!, $after: String) {
  locations(first: $first, after: $after, includeInactive: true) {
    nodes { id name isActive }
    pageInfo { hasNextPage endCursor }
  }
}`;

export function locationPages(client: PlatformClient, options?: PageOptions): AsyncGenerator<LocationRecord[]> {
  return pages(
    client,
    { text: LOCATIONS, cost: 2 + 250, pageSize: 250 },
    {},
    (data) => z.object({ locations: connectionSchema(z.object({ id: z.string(), name: z.string(), isActive: z.boolean() })) }).parse(data).locations,
    (l) => ({ id: l.id, name: l.name, active: l.isActive }),
    options,
  );
}

/** Regions read per market: more than the countries there are. */
const MARKET_REGIONS = 250;
/** Locations read per market. */
const MARKET_LOCATIONS = 100;
/** A market's requested cost: itself, its conditions, each condition, each connection (2 + first). */
const MARKET_COST = 1 + 1 + 1 + (2 + MARKET_REGIONS) + 1 + (2 + MARKET_LOCATIONS);
/** Markets per page, under the platform's single-query cost cap (1,000). */
const MARKETS_PER_PAGE = 2;

/**
 * Markets through today's Markets API (decision 0218): a market is active when its status is
 * ACTIVE, its countries are its regions condition's, its locations its locations condition's.
 * The primary market (Market.primary is deprecated) is the one holding the shop's backup region,
 * where a visitor no market matches is sold to: the shop's home market.
 */
export const MARKETS = `query MirrorMarkets($first: Int!, $after: String) {
  backupRegion { ... on MarketRegionCountry { code } }
  markets(first: $first, after: $after) {
    nodes {
      id name status
      conditions {
        regionsCondition { regions(first: ${MARKET_REGIONS}) { nodes { ... on MarketRegionCountry { code } } pageInfo { hasNextPage } } }
        locationsCondition { locations(first: ${MARKET_LOCATIONS}) { nodes { id } pageInfo { hasNextPage } } }
      }
    }
    pageInfo { hasNextPage endCursor }
  }
}`;

const truncated = z.object({ hasNextPage: z.boolean() });
const marketNode = z.object({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  conditions: z
    .object({
      regionsCondition: z.object({ regions: z.object({ nodes: z.array(z.object({ code: z.string() }).partial()), pageInfo: truncated }) }).nullable(),
      locationsCondition: z.object({ locations: z.object({ nodes: z.array(z.object({ id: z.string() })), pageInfo: truncated }) }).nullable(),
    })
    .nullable(),
});
const marketsAnswer = z.object({ backupRegion: z.object({ code: z.string() }).partial(), markets: connectionSchema(marketNode) });

function marketRecord(market: z.infer<typeof marketNode>, backupCountry: string | undefined): MarketRecord {
  const regions = market.conditions?.regionsCondition?.regions;
  const locations = market.conditions?.locationsCondition?.locations;
  // Every country there is fits in one page; a market with more locations than one page is not mirrored wrong, it fails loudly.
  if (regions?.pageInfo.hasNextPage || locations?.pageInfo.hasNextPage) {
    throw new Error(`market ${market.id} has more than ${MARKET_REGIONS} regions or ${MARKET_LOCATIONS} locations, more than the mirror reads`);
  }
  const countries = (regions?.nodes ?? []).flatMap((r) => (r.code === undefined ? [] : [r.code]));
  return {
    id: market.id,
    name: market.name,
    active: market.status === "ACTIVE",
    primary: backupCountry !== undefined && countries.includes(backupCountry),
    countries,
    locationIds: (locations?.nodes ?? []).map((l) => l.id),
  };
}

export function marketPages(client: PlatformClient, options?: PageOptions): AsyncGenerator<MarketRecord[]> {
  let backupCountry: string | undefined;
  return pages(
    client,
    { text: MARKETS, cost: 1 + 2 + MARKETS_PER_PAGE * MARKET_COST, pageSize: MARKETS_PER_PAGE },
    {},
    (data) => {
      const answer = marketsAnswer.parse(data);
      backupCountry = answer.backupRegion.code;
      return answer.markets;
    },
    (m) => marketRecord(m, backupCountry),
    options,
  );
}

export const COLLECTIONS = `query MirrorCollections($first: Int!, $after: String) {
  collections(first: $first, after: $after) {
    nodes { id title handle updatedAt }
    pageInfo { hasNextPage endCursor }
  }
}`;

export function collectionPages(client: PlatformClient, options?: PageOptions): AsyncGenerator<CollectionRecord[]> {
  return pages(
    client,
    { text: COLLECTIONS, cost: 2 + 250, pageSize: 250 },
    {},
    (data) =>
      z.object({ collections: connectionSchema(z.object({ id: z.string(), title: z.string(), handle: z.string(), updatedAt: z.string() })) }).parse(data)
        .collections,
    (c) => c,
    options,
  );
}
