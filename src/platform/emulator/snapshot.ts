import { z } from "zod";
import type { AppInstallation, SavedAppInstallation } from "./app-installation.ts";
import type { Collection, Customer, Location, Market, Metafield, Order, Product, SellingPlan, SellingPlanGroup, Variant } from "./model.ts";
import { type SavedDraftOrders, restoreDraftOrders, savedDraftOrders } from "./resolvers/draft-orders.ts";
import { type SavedOrderEdits, restoreOrderEdits, savedOrderEdits } from "./resolvers/order-edits.ts";
import { Store } from "./store.ts";

/**
 * The store's whole state as JSON: what a restart loads instead of seeding again. Seeding again
 * would hand out the same selling plan group, plan, order and line item ids a second time, and a
 * client holding an old id would then change someone else's record.
 *
 * Records are saved as they are held; only what JSON cannot carry is converted (typed arrays of
 * stock levels, sets of a group's members, maps of staged quantities).
 *
 * Version 2 adds what lives beside the store: draft orders and open order edits (with the next id
 * of each), and the app's installation (granted access scopes, Flow triggers received, product
 * translations). A version 1 file still loads: without drafts or edits, and with the installation
 * the emulator was started with.
 */

const FORMAT = "platform-emulator-state";
const VERSION = 2;
/** The versions a restore reads. */
const READS = [1, 2] as const;

type SavedSeed = Readonly<Record<string, number>>;
type SavedLocation = Omit<Location, "levels"> & { levels: { available: number[]; updatedAt: number[] } | null };
type SavedGroup = Omit<SellingPlanGroup, "variantIds" | "productIds"> & { variantIds: number[]; productIds: number[] };

interface Snapshot {
  format: typeof FORMAT;
  version: (typeof READS)[number];
  /** The seed options the state grew from: a restart with other ones keeps the state and says so. */
  seed: SavedSeed;
  counters: ReturnType<Store["counters"]>;
  products: Product[];
  variants: Variant[];
  locations: SavedLocation[];
  markets: Market[];
  collections: Collection[];
  customers: Customer[];
  orders: Order[];
  sellingPlanGroups: SavedGroup[];
  sellingPlans: SellingPlan[];
  /** Absent in a state saved before metafields existed. */
  metafields?: Metafield[];
  /** Version 2 on. */
  draftOrders?: SavedDraftOrders;
  orderEdits?: SavedOrderEdits;
  app?: SavedAppInstallation;
}

/**
 * `seed`: the seed options the state grew from (all of them, defaults included); `app`: the app's
 * installation beside the store (the emulator always passes it; without it, a restore keeps the
 * installation the emulator starts with).
 */
export function serializeStore(store: Store, seed: SavedSeed, app?: AppInstallation): string {
  const snapshot: Snapshot = {
    format: FORMAT,
    version: VERSION,
    seed,
    counters: store.counters(),
    products: store.products,
    variants: store.variants,
    locations: store.locations.map((l) => ({
      ...l,
      levels: l.levels ? { available: Array.from(l.levels.available), updatedAt: Array.from(l.levels.updatedAt) } : null,
    })),
    markets: store.markets,
    collections: store.collections,
    customers: store.customers,
    orders: store.orders,
    sellingPlanGroups: [...store.sellingPlanGroups.values()].map((g) => ({ ...g, variantIds: [...g.variantIds], productIds: [...g.productIds] })),
    sellingPlans: [...store.sellingPlans.values()],
    metafields: store.allMetafields(),
    draftOrders: savedDraftOrders(store),
    orderEdits: savedOrderEdits(store),
    ...(app ? { app: app.saved() } : {}),
  };
  return JSON.stringify(snapshot);
}

// The file is the emulator's own: the check catches a wrong, foreign or older file and the fields
// the restore converts, not a hand edit of every field of every record.
const record = <K extends string>(kind: K) => z.array(z.looseObject({ kind: z.literal(kind), id: z.number().int().positive() }));
const idList = z.array(z.number().int().positive());
const counter = z.number().int().positive();
const sinceVersion1 = z.object({
  format: z.literal(FORMAT),
  seed: z.record(z.string(), z.number()),
  counters: z.object({
    lastTime: z.number(),
    nextLineItem: z.number().int(),
    nextGroup: z.number().int(),
    nextPlan: z.number().int(),
    // Absent in a state saved before metafields, or fulfillment orders, existed.
    nextMetafield: z.number().int().optional(),
    nextFulfillmentOrder: z.number().int().optional(),
    nextFulfillmentOrderLineItem: z.number().int().optional(),
    nextFulfillmentHold: z.number().int().optional(),
  }),
  products: record("Product"),
  variants: record("ProductVariant"),
  locations: z.array(
    z.looseObject({
      kind: z.literal("Location"),
      id: z.number().int().positive(),
      levels: z.object({ available: z.array(z.number().int()), updatedAt: z.array(z.number()) }).nullable(),
    }),
  ),
  markets: record("Market"),
  collections: record("Collection"),
  customers: record("Customer"),
  orders: z.array(
    z.looseObject({ kind: z.literal("Order"), id: z.number().int().positive(), lineItems: z.array(z.looseObject({ id: z.number().int().positive() })) }),
  ),
  sellingPlanGroups: z.array(z.looseObject({ kind: z.literal("SellingPlanGroup"), id: z.number().int().positive(), variantIds: idList, productIds: idList })),
  sellingPlans: record("SellingPlan"),
  metafields: record("Metafield").optional(),
});
const snapshotSchema = z.discriminatedUnion("version", [
  sinceVersion1.extend({ version: z.literal(1) }),
  sinceVersion1.extend({
    version: z.literal(2),
    draftOrders: z.object({
      nextId: counter,
      drafts: z.array(
        z.looseObject({
          kind: z.literal("DraftOrder"),
          id: z.number().int().positive(),
          lines: z.array(z.looseObject({ variantId: z.number().int().positive(), quantity: z.number().int().positive() })),
          tags: z.array(z.string()),
          customAttributes: z.array(z.object({ key: z.string(), value: z.string().nullable() })),
        }),
      ),
    }),
    orderEdits: z.object({
      nextId: counter,
      edits: z.array(
        z.looseObject({
          kind: z.literal("CalculatedOrder"),
          id: z.number().int().positive(),
          orderId: z.number().int().positive(),
          staged: z.array(z.tuple([z.number().int().positive(), z.number().int()])),
        }),
      ),
    }),
    app: z.object({
      accessScopes: z.array(z.string()),
      flowTriggers: z.array(z.object({ handle: z.string(), payload: z.unknown(), receivedAt: z.number() })),
      translations: z.array(z.object({ resourceId: z.string(), locale: z.string(), key: z.string(), value: z.string() })),
    }).optional(),
  }),
]);

/**
 * A store from a snapshot, with the seed options it grew from and the app's installation (absent
 * in a version 1 file); the drafts and order edits are put beside the store. `skipIds` ids of each
 * kind are skipped (Store.skipIds). Throws on anything but this format.
 */
export function deserializeStore(text: string, skipIds = 0): { store: Store; seed: SavedSeed; app: SavedAppInstallation | undefined } {
  const parsed = snapshotSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`not a platform emulator state (versions ${READS.join(", ")}): ${z.prettifyError(parsed.error)}`);
  // Validated above as far as the restore depends on it; the records are otherwise as saved.
  const s = parsed.data as unknown as Snapshot;
  const store = new Store({
    products: s.products,
    variants: s.variants,
    locations: s.locations.map((l) => ({
      ...l,
      levels: l.levels ? { available: Int32Array.from(l.levels.available), updatedAt: Float64Array.from(l.levels.updatedAt) } : null,
    })),
    markets: s.markets,
    collections: s.collections,
    customers: s.customers,
    orders: s.orders,
    sellingPlanGroups: s.sellingPlanGroups.map((g) => ({ ...g, variantIds: new Set(g.variantIds), productIds: new Set(g.productIds) })),
    sellingPlans: s.sellingPlans,
    metafields: s.metafields ?? [],
    counters: s.counters,
  });
  store.skipIds(skipIds);
  restoreDraftOrders(store, s.draftOrders ?? { nextId: 1, drafts: [] }, skipIds);
  restoreOrderEdits(store, s.orderEdits ?? { nextId: 1, edits: [] }, skipIds);
  return { store, seed: s.seed, app: s.app };
}
