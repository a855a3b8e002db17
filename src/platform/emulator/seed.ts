import { ID_BASE } from "./ids.ts";
import type { Collection, Customer, Location, Market, Product, Variant } from "./model.ts";
import { Prng } from "./prng.ts";
import { Store } from "./store.ts";

export interface SeedOptions {
  products?: number;
  variantsPerProduct?: number;
  locations?: number;
  markets?: number;
  collections?: number;
  customers?: number;
  seed?: number;
}

export const SEED_DEFAULTS = { products: 200, variantsPerProduct: 5, locations: 3, markets: 2, collections: 10, customers: 20, seed: 1 };

/** The tag the service reads as "never offer preorders on this product". */
const PREORDER_EXCLUDE_TAG = "preorder-exclude";

// Seeded times lie in 2025, before any change made while running: a fixed range keeps runs identical.
const SEED_EPOCH = Date.UTC(2025, 0, 1);
const DAY = 86_400_000;

const ADJECTIVES = ["Classic", "Everyday", "Organic", "Vintage", "Urban", "Coastal", "Alpine", "Minimal", "Heritage", "Lightweight", "Cozy", "Rugged"];
const MATERIALS = ["Linen", "Cotton", "Wool", "Denim", "Leather", "Canvas", "Cashmere", "Merino", "Hemp", "Silk"];
const TYPES = ["Shirt", "Jacket", "Sweater", "Tote", "Scarf", "Cap", "Trousers", "Dress", "Hoodie", "Socks", "Backpack", "Beanie"];
const VENDORS = ["Northwind", "Fjord & Field", "Maple Goods", "Atelier Nine", "Harbor Supply"];
const TAGS = ["new", "sale", "summer", "winter", "bestseller", "limited", "eco", "gift", "restock"];
const SIZES = ["XS", "S", "M", "L", "XL", "XXL"];
const COLORS = ["Black", "White", "Navy", "Olive", "Sand", "Red", "Grey"];
const LOCATION_NAMES = ["Main Warehouse", "Downtown Store", "Harbor Outlet", "North Depot", "Airport Kiosk", "Old Warehouse"];
const MARKETS: readonly { name: string; countryCodes: string[] }[] = [
  { name: "United States", countryCodes: ["US"] },
  { name: "Europe", countryCodes: ["DE", "FR", "NL", "IT", "ES"] },
  { name: "United Kingdom", countryCodes: ["GB"] },
  { name: "Canada", countryCodes: ["CA"] },
  { name: "Australia", countryCodes: ["AU", "NZ"] },
];
const COLLECTIONS = ["Summer Edit", "Winter Warmers", "Best Sellers", "New Arrivals", "Outdoor", "Essentials", "Gifts", "Accessories", "Workwear", "Sale"];
const FIRST_NAMES = ["Ada", "Ben", "Chloé", "Dmitri", "Elif", "Farah", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lena"];

function slug(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

/** `count` distinct picks in ascending order. */
function distinct(prng: Prng, count: number, pool: number): number[] {
  const picked = new Set<number>();
  while (picked.size < Math.min(count, pool)) picked.add(prng.int(0, pool - 1));
  return [...picked].sort((a, b) => a - b);
}

function seedLocations(count: number): Location[] {
  return Array.from({ length: count }, (_, i) => {
    // With three or more, the last one is closed: clients must honour includeInactive.
    const isActive = !(count >= 3 && i === count - 1);
    return {
      kind: "Location",
      id: ID_BASE.Location + i + 1,
      name: LOCATION_NAMES[i] ?? `Location ${i + 1}`,
      isActive,
      levels: null,
    };
  });
}

function seedMarkets(count: number, locations: readonly Location[]): Market[] {
  const active = locations.filter((l) => l.isActive).map((l) => l.id);
  return Array.from({ length: count }, (_, i) => {
    const known = MARKETS[i];
    const primary = i === 0;
    const secondary = active[i % Math.max(active.length, 1)];
    return {
      kind: "Market",
      id: ID_BASE.Market + i + 1,
      name: known?.name ?? `Market ${i + 1}`,
      enabled: true,
      primary,
      countryCodes: known?.countryCodes ?? [`X${String.fromCharCode(65 + (i % 26))}`],
      // The primary market ships from every active location; the others from one each.
      locationIds: primary ? [...active] : secondary === undefined ? [] : [secondary],
    };
  });
}

function seedCollections(prng: Prng, count: number): Collection[] {
  return Array.from({ length: count }, (_, i) => {
    const title = COLLECTIONS[i] ?? `Collection ${i + 1}`;
    return { kind: "Collection", id: ID_BASE.Collection + i + 1, title, handle: slug(title), updatedAt: SEED_EPOCH + prng.int(0, 300) * DAY };
  });
}

function seedCustomers(prng: Prng, count: number): Customer[] {
  return Array.from({ length: count }, (_, i) => {
    const firstName = prng.pick(FIRST_NAMES);
    return {
      kind: "Customer",
      id: ID_BASE.Customer + i + 1,
      email: `${slug(firstName)}.${i + 1}@example.com`,
      phone: prng.chance(0.5) ? `+1555${String(prng.int(0, 9_999_999)).padStart(7, "0")}` : null,
      firstName,
      tags: prng.chance(0.2) ? ["vip"] : [],
      updatedAt: SEED_EPOCH + prng.int(0, 300) * DAY,
    };
  });
}

function variantTitle(index: number, perProduct: number): string {
  if (perProduct === 1) return "Default Title";
  const size = SIZES[index % SIZES.length] ?? "M";
  const color = COLORS[Math.floor(index / SIZES.length) % COLORS.length] ?? "Black";
  return `${size} / ${color}`;
}

/**
 * Builds the store: the same options give the same catalog. Sized for 100,000 variants in a few
 * seconds: plain arrays, numeric ids, and quantities in typed arrays per location.
 */
/**
 * `idOffset` starts the ids of created selling plan groups, plans and line items that far past
 * their bases: a persisted emulator seeding a new state file (its first start, or a file moved
 * away) then hands out none of the ids an earlier emulator gave the same database.
 */
export function seedStore(options: SeedOptions = {}, { idOffset = 0 }: { idOffset?: number } = {}): Store {
  const o = { ...SEED_DEFAULTS, ...options };
  const prng = new Prng(o.seed);
  const locations = seedLocations(o.locations);
  const markets = seedMarkets(o.markets, locations);
  const collections = seedCollections(prng, o.collections);
  const customers = seedCustomers(prng, o.customers);

  const variantCount = o.products * o.variantsPerProduct;
  const stocked = locations.map((l) =>
    l.isActive ? { ...l, levels: { available: new Int32Array(variantCount), updatedAt: new Float64Array(variantCount) } } : l,
  );
  const products: Product[] = new Array<Product>(o.products);
  const variants: Variant[] = new Array<Variant>(variantCount);

  for (let p = 0; p < o.products; p++) {
    const type = prng.pick(TYPES);
    const title = `${prng.pick(ADJECTIVES)} ${prng.pick(MATERIALS)} ${type}`;
    const tags = distinct(prng, prng.int(0, 3), TAGS.length).map((t) => TAGS[t] ?? "new");
    if (prng.chance(0.08)) tags.push(PREORDER_EXCLUDE_TAG);
    const createdAt = SEED_EPOCH + prng.int(0, 300 * DAY);
    const id = ID_BASE.Product + p + 1;
    const basePrice = prng.int(9, 199) * 100 + (prng.chance(0.5) ? 99 : 0);
    products[p] = {
      kind: "Product",
      id,
      title,
      handle: `${slug(title)}-${p + 1}`,
      status: prng.chance(0.04) ? "DRAFT" : "ACTIVE",
      tags: tags.sort(),
      vendor: prng.pick(VENDORS),
      productType: type,
      createdAt,
      updatedAt: createdAt + prng.int(0, 60 * DAY),
      collectionIds: o.collections > 0 ? distinct(prng, prng.int(0, 2), o.collections).map((c) => ID_BASE.Collection + c + 1) : [],
      firstVariant: p * o.variantsPerProduct,
      variantCount: o.variantsPerProduct,
    };
    for (let v = 0; v < o.variantsPerProduct; v++) {
      const index = p * o.variantsPerProduct + v;
      variants[index] = {
        kind: "ProductVariant",
        id: ID_BASE.ProductVariant + index + 1,
        productId: id,
        title: variantTitle(v, o.variantsPerProduct),
        sku: `SKU-${String(p + 1).padStart(6, "0")}-${v + 1}`,
        priceCents: basePrice + (v % SIZES.length) * 100,
        inventoryPolicy: prng.chance(0.12) ? "CONTINUE" : "DENY",
        tracked: !prng.chance(0.02),
        createdAt,
        updatedAt: createdAt + prng.int(0, 60 * DAY),
      };
      for (const location of stocked) {
        if (!location.levels) continue;
        location.levels.available[index] = prng.chance(0.2) ? 0 : prng.int(1, 120);
        location.levels.updatedAt[index] = createdAt + prng.int(0, 90 * DAY);
      }
    }
  }
  const counters =
    idOffset > 0
      ? {
          lastTime: 0,
          nextLineItem: ID_BASE.LineItem + idOffset,
          nextGroup: ID_BASE.SellingPlanGroup + idOffset,
          nextPlan: ID_BASE.SellingPlan + idOffset,
        }
      : undefined;
  return new Store({ products, variants, locations: stocked, markets, collections, customers, ...(counters ? { counters } : {}) });
}
