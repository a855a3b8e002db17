import type { Context } from "../context.ts";
import { type Source, byId, paginate } from "../connection.ts";
import { inventoryLevelGid } from "../ids.ts";
import type { Collection, InventoryItemView, InventoryLevelView, Location, Market, Product, Variant } from "../model.ts";
import { formatCents, iso } from "../money.ts";
import { compileSearch } from "../search.ts";
import type { ConnectionArgs, Resolvers, SearchArgs } from "./types.ts";

/** Quantity names the platform knows; the emulator tracks only `available` and reports the rest from it. */
const QUANTITY_NAMES = new Set(["available", "on_hand", "committed", "incoming", "reserved", "damaged", "safety_stock", "quality_control"]);

function quantity(name: string, available: number): number {
  if (!QUANTITY_NAMES.has(name)) throw new Error(`Unknown inventory quantity name '${name}'`);
  if (name === "available" || name === "on_hand") return available;
  return 0;
}

/** A location's levels, ordered by inventory item id (which ascends with the variant index). */
function levelSource(ctx: Context, location: Location): Source<InventoryLevelView> {
  const length = location.levels ? ctx.store.variants.length : 0;
  return {
    length,
    at: (i) => ({ kind: "InventoryLevel", location, variantIndex: i }),
    key: (i) => {
      const id = ctx.store.inventoryItemId(i);
      return { lastId: id, lastValue: id };
    },
  };
}

/** An item's levels, one per active location, ordered by location id. */
function itemLevelSource(ctx: Context, item: InventoryItemView): Source<InventoryLevelView> {
  const locations = ctx.store.activeLocations();
  return {
    length: locations.length,
    at: (i) => ({ kind: "InventoryLevel", location: locations[i] as Location, variantIndex: item.variantIndex }),
    key: (i) => {
      const id = (locations[i] as Location).id;
      return { lastId: id, lastValue: id };
    },
  };
}

function levelUpdatedAt(level: InventoryLevelView): number {
  return level.location.levels?.updatedAt[level.variantIndex] ?? 0;
}

function levelAvailable(level: InventoryLevelView): number {
  return level.location.levels?.available[level.variantIndex] ?? 0;
}

interface MarketConditionsView {
  readonly kind: "MarketConditions";
  readonly market: Market;
}

/** A market's countries as MarketRegionCountry nodes, numbered after the market (the platform's ids are its own). */
export function marketCountries(market: Market): MarketRegionCountryView[] {
  return market.countryCodes.map((code, i) => ({ kind: "MarketRegionCountry", id: market.id * 1000 + i + 1, code, name: countryName(code) }));
}

export interface MarketRegionCountryView {
  readonly kind: "MarketRegionCountry";
  readonly id: number;
  readonly code: string;
  readonly name: string;
}

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });

function countryName(code: string): string {
  return regionNames.of(code) ?? code;
}

export const catalogResolvers: Resolvers = {
  Product: {
    collections: (p: Product, args: ConnectionArgs, ctx: Context) =>
      paginate(byId(p.collectionIds.map((id) => ctx.store.collection(id)).filter((c): c is Collection => c !== undefined)), args),
    variants: (p: Product, args: ConnectionArgs, ctx: Context) => paginate(byId(ctx.store.variantsOf(p)), args),
    // Non-null on the platform: a product without one has "".
    vendor: (p: Product) => p.vendor ?? "",
    productType: (p: Product) => p.productType ?? "",
    onlineStoreUrl: (p: Product, _: unknown, ctx: Context) => (p.status === "ACTIVE" ? `https://${ctx.shop.domain}/products/${p.handle}` : null),
  },
  ProductVariant: {
    price: (v: Variant) => formatCents(v.priceCents),
    inventoryQuantity: (v: Variant, _: unknown, ctx: Context) => ctx.store.inventoryQuantity(ctx.store.variantIndex(v)),
    product: (v: Variant, _: unknown, ctx: Context) => ctx.store.productOf(v),
    inventoryItem: (v: Variant, _: unknown, ctx: Context) => ctx.store.inventoryItem(ctx.store.inventoryItemId(ctx.store.variantIndex(v))),
  },
  InventoryItem: {
    tracked: (item: InventoryItemView, _: unknown, ctx: Context) => ctx.store.variants[item.variantIndex]?.tracked ?? false,
    variant: (item: InventoryItemView, _: unknown, ctx: Context) => ctx.store.variants[item.variantIndex],
    inventoryLevels: (item: InventoryItemView, args: ConnectionArgs, ctx: Context) => paginate(itemLevelSource(ctx, item), args),
  },
  InventoryLevel: {
    id: (level: InventoryLevelView, _: unknown, ctx: Context) => inventoryLevelGid(level.location.id, ctx.store.inventoryItemId(level.variantIndex)),
    item: (level: InventoryLevelView, _: unknown, ctx: Context) => ctx.store.inventoryItem(ctx.store.inventoryItemId(level.variantIndex)),
    location: (level: InventoryLevelView) => level.location,
    quantities: (level: InventoryLevelView, args: { names: string[] }) =>
      args.names.map((name) => ({ name, quantity: quantity(name, levelAvailable(level)) })),
    updatedAt: (level: InventoryLevelView) => iso(levelUpdatedAt(level)),
  },
  Location: {
    inventoryLevels: (location: Location, args: SearchArgs, ctx: Context) =>
      paginate(
        levelSource(ctx, location),
        args,
        compileSearch<InventoryLevelView>(args.query, {
          updated_at: { kind: "time", get: levelUpdatedAt },
          inventory_item_id: { kind: "id", type: "InventoryItem", get: (l) => ctx.store.inventoryItemId(l.variantIndex) },
        }),
      ),
  },
  // Today's Markets API (decision 0218): a region market, its countries and locations as its conditions.
  Market: {
    status: (market: Market) => (market.enabled ? "ACTIVE" : "DRAFT"),
    type: () => "REGION",
    handle: (market: Market) => market.name.toLowerCase().replace(/[^a-z0-9]+/g, "-"),
    conditions: (market: Market) => ({ kind: "MarketConditions", market }),
  },
  MarketConditions: {
    conditionTypes: (conditions: MarketConditionsView) => (conditions.market.locationIds.length > 0 ? ["REGION", "LOCATION"] : ["REGION"]),
    regionsCondition: (conditions: MarketConditionsView) => ({ applicationLevel: "SPECIFIED", market: conditions.market }),
    locationsCondition: (conditions: MarketConditionsView) => (conditions.market.locationIds.length > 0 ? { applicationLevel: "SPECIFIED", market: conditions.market } : null),
  },
  RegionsCondition: {
    regions: (condition: { market: Market }, args: ConnectionArgs) => paginate(byId(marketCountries(condition.market)), args),
  },
  LocationsCondition: {
    locations: (condition: { market: Market }, args: ConnectionArgs, ctx: Context) =>
      paginate(byId(condition.market.locationIds.map((id) => ctx.store.location(id)).filter((l): l is Location => l !== undefined)), args),
  },
};
