import { ID_BASE } from "./ids.ts";
import type {
  Collection,
  Customer,
  FulfillmentHold,
  FulfillmentOrder,
  FulfillmentOrderLineItem,
  InventoryItemView,
  InventoryLevelView,
  Location,
  Market,
  Metafield,
  MetafieldOwnerType,
  Order,
  Product,
  SellingPlan,
  SellingPlanGroup,
  Variant,
} from "./model.ts";

interface StoreData {
  products: Product[];
  variants: Variant[];
  locations: Location[];
  markets: Market[];
  collections: Collection[];
  customers: Customer[];
  /** What a restored store had created; a seeded one starts without. */
  orders?: Order[];
  sellingPlanGroups?: SellingPlanGroup[];
  sellingPlans?: SellingPlan[];
  metafields?: Metafield[];
  counters?: StoreCounters;
}

/** The store's clock and id counters: saved with its state, so a restart hands no id out twice. */
interface StoreCounters {
  lastTime: number;
  nextLineItem: number;
  nextGroup: number;
  nextPlan: number;
  /** Absent in a state saved before metafields existed. */
  nextMetafield?: number;
  /** Absent in a state saved before fulfillment orders existed. */
  nextFulfillmentOrder?: number;
  nextFulfillmentOrderLineItem?: number;
  nextFulfillmentHold?: number;
}

/** The next id to hand out: past the saved counter and past every id present, whichever is higher. */
function nextId(base: number, saved: number | undefined, ids: Iterable<number>): number {
  let next = Math.max(base + 1, saved ?? 0);
  for (const id of ids) if (id >= next) next = id + 1;
  return next;
}

/** Sorted positions by (updatedAt, id), rebuilt only after a change: paging by UPDATED_AT must not sort per page. */
interface UpdatedIndex {
  version: number;
  order: Int32Array;
}

/**
 * The in-memory store. Seeded rows live in arrays whose index is `id - base - 1`, so a lookup by id
 * is arithmetic; created rows (customers, orders) are appended with the next id and keep that rule.
 * Selling plan groups and plans can be deleted and live in Maps.
 *
 * Mutate through the methods that bump `updatedAt` (`touch…`, `setAvailable`) so incremental
 * queries (`updated_at:>`) see the change. snapshot.ts saves and restores it whole, counters
 * included: a restored store continues its ids, it never starts them again.
 */
export class Store {
  readonly products: Product[];
  readonly variants: Variant[];
  readonly locations: Location[];
  readonly markets: Market[];
  readonly collections: Collection[];
  readonly customers: Customer[];
  readonly orders: Order[];
  readonly sellingPlanGroups: Map<number, SellingPlanGroup>;
  readonly sellingPlans: Map<number, SellingPlan>;
  /** By owner (`PRODUCTVARIANT:<id>`), then by `namespace\tkey`. */
  readonly #metafields = new Map<string, Map<string, Metafield>>();

  #lastTime: number;
  #productsVersion = 0;
  #variantsVersion = 0;
  #productsByUpdated: UpdatedIndex | undefined;
  #variantsByUpdated: UpdatedIndex | undefined;
  #nextLineItem: number;
  #nextGroup: number;
  #nextPlan: number;
  #nextMetafield: number;
  #nextFulfillmentOrder: number;
  #nextFulfillmentOrderLineItem: number;
  #nextFulfillmentHold: number;

  constructor(data: StoreData) {
    this.products = data.products;
    this.variants = data.variants;
    this.locations = data.locations;
    this.markets = data.markets;
    this.collections = data.collections;
    this.customers = data.customers;
    this.orders = data.orders ?? [];
    this.sellingPlanGroups = new Map((data.sellingPlanGroups ?? []).map((g) => [g.id, g]));
    this.sellingPlans = new Map((data.sellingPlans ?? []).map((p) => [p.id, p]));
    const saved = data.counters;
    this.#lastTime = saved?.lastTime ?? 0;
    this.#nextLineItem = nextId(
      ID_BASE.LineItem,
      saved?.nextLineItem,
      this.orders.flatMap((o) => o.lineItems.map((l) => l.id)),
    );
    this.#nextGroup = nextId(ID_BASE.SellingPlanGroup, saved?.nextGroup, this.sellingPlanGroups.keys());
    this.#nextPlan = nextId(ID_BASE.SellingPlan, saved?.nextPlan, this.sellingPlans.keys());
    const metafields = data.metafields ?? [];
    for (const metafield of metafields) this.#ownerMetafields(metafield.ownerType, metafield.ownerId, true).set(metafieldKey(metafield.namespace, metafield.key), metafield);
    this.#nextMetafield = nextId(ID_BASE.Metafield, saved?.nextMetafield, metafields.map((m) => m.id));
    const fulfillmentOrders = this.orders.flatMap((o) => (o.fulfillmentOrders as FulfillmentOrder[] | undefined) ?? []);
    this.#nextFulfillmentOrder = nextId(ID_BASE.FulfillmentOrder, saved?.nextFulfillmentOrder, fulfillmentOrders.map((f) => f.id));
    this.#nextFulfillmentOrderLineItem = nextId(
      ID_BASE.FulfillmentOrderLineItem,
      saved?.nextFulfillmentOrderLineItem,
      fulfillmentOrders.flatMap((f) => f.lineItems.map((l) => l.id)),
    );
    this.#nextFulfillmentHold = nextId(ID_BASE.FulfillmentHold, saved?.nextFulfillmentHold, fulfillmentOrders.flatMap((f) => f.holds.map((h) => h.id)));
    // An order saved before fulfillment orders existed gets its one now, in the state its order is in.
    for (const order of this.orders as (Omit<Order, "fulfillmentOrders"> & { fulfillmentOrders?: FulfillmentOrder[] })[]) {
      if (order.fulfillmentOrders !== undefined) continue;
      const restored = Object.assign(order, { fulfillmentOrders: [] as FulfillmentOrder[] });
      const status = order.cancelledAt !== null ? "CANCELLED" : order.fulfillmentStatus === "fulfilled" ? "CLOSED" : "OPEN";
      const added = this.addFulfillmentOrder(restored, order.lineItems.map((l) => ({ lineItemId: l.id, quantity: l.quantity })), status, order.createdAt);
      if (status === "CLOSED") for (const line of added.lineItems) line.remainingQuantity = 0;
    }
  }

  /**
   * Skips `count` ids of each created kind. A restored store does this once: the file is written
   * shortly after a change, so a crash can lose the last ids handed out, and they must not be
   * handed out again (an offer still names them).
   */
  skipIds(count: number): void {
    this.#nextLineItem += count;
    this.#nextGroup += count;
    this.#nextPlan += count;
    this.#nextMetafield += count;
    this.#nextFulfillmentOrder += count;
    this.#nextFulfillmentOrderLineItem += count;
    this.#nextFulfillmentHold += count;
  }

  /** The clock and counters, for a snapshot of the state. */
  counters(): StoreCounters {
    return {
      lastTime: this.#lastTime,
      nextLineItem: this.#nextLineItem,
      nextGroup: this.#nextGroup,
      nextPlan: this.#nextPlan,
      nextMetafield: this.#nextMetafield,
      nextFulfillmentOrder: this.#nextFulfillmentOrder,
      nextFulfillmentOrderLineItem: this.#nextFulfillmentOrderLineItem,
      nextFulfillmentHold: this.#nextFulfillmentHold,
    };
  }

  /** Wall-clock milliseconds, strictly increasing: two changes never share an updatedAt. */
  now(): number {
    this.#lastTime = Math.max(Date.now(), this.#lastTime + 1);
    return this.#lastTime;
  }

  product(id: number): Product | undefined {
    return this.products[id - ID_BASE.Product - 1];
  }

  variant(id: number): Variant | undefined {
    return this.variants[id - ID_BASE.ProductVariant - 1];
  }

  variantIndex(variant: Variant): number {
    return variant.id - ID_BASE.ProductVariant - 1;
  }

  variantsOf(product: Product): Variant[] {
    return this.variants.slice(product.firstVariant, product.firstVariant + product.variantCount);
  }

  productOf(variant: Variant): Product {
    const product = this.product(variant.productId);
    if (!product) throw new Error(`variant ${variant.id} has no product`);
    return product;
  }

  inventoryItemId(variantIndex: number): number {
    return ID_BASE.InventoryItem + variantIndex + 1;
  }

  inventoryItem(id: number): InventoryItemView | undefined {
    const variantIndex = id - ID_BASE.InventoryItem - 1;
    return this.variants[variantIndex] ? { kind: "InventoryItem", id, variantIndex } : undefined;
  }

  location(id: number): Location | undefined {
    return this.locations[id - ID_BASE.Location - 1];
  }

  activeLocations(): Location[] {
    return this.locations.filter((l) => l.isActive && l.levels);
  }

  level(variantIndex: number, location: Location): InventoryLevelView | undefined {
    return location.levels && this.variants[variantIndex] ? { kind: "InventoryLevel", location, variantIndex } : undefined;
  }

  /** The sum of `available` over active locations, as the variant's inventoryQuantity. */
  inventoryQuantity(variantIndex: number): number {
    let total = 0;
    for (const location of this.locations) {
      if (location.isActive && location.levels) total += location.levels.available[variantIndex] ?? 0;
    }
    return total;
  }

  /**
   * Sets a level's available quantity. The variant's updatedAt moves too: its inventoryQuantity
   * changed, and an incremental variant sync should see that.
   */
  setAvailable(variantIndex: number, location: Location, available: number): InventoryLevelView {
    const variant = this.variants[variantIndex];
    if (!location.levels || !variant) throw new Error("no such inventory level");
    const at = this.now();
    location.levels.available[variantIndex] = available;
    location.levels.updatedAt[variantIndex] = at;
    this.touchVariant(variant, at);
    return { kind: "InventoryLevel", location, variantIndex };
  }

  market(id: number): Market | undefined {
    return this.markets[id - ID_BASE.Market - 1];
  }

  collection(id: number): Collection | undefined {
    return this.collections[id - ID_BASE.Collection - 1];
  }

  customer(id: number): Customer | undefined {
    return this.customers[id - ID_BASE.Customer - 1];
  }

  customerByEmail(email: string): Customer | undefined {
    const wanted = email.toLowerCase();
    return this.customers.find((c) => c.email?.toLowerCase() === wanted);
  }

  addCustomer(fields: Pick<Customer, "email" | "phone" | "firstName">): Customer {
    const customer: Customer = { kind: "Customer", id: ID_BASE.Customer + this.customers.length + 1, tags: [], updatedAt: this.now(), ...fields };
    this.customers.push(customer);
    return customer;
  }

  order(id: number): Order | undefined {
    return this.orders[id - ID_BASE.Order - 1];
  }

  nextOrderId(): number {
    return ID_BASE.Order + this.orders.length + 1;
  }

  nextLineItemId(): number {
    return this.#nextLineItem++;
  }

  /**
   * A new fulfillment order of the order with these quantities of its line items (each a new
   * fulfillment order line item), appended to the order's. Answers it.
   */
  addFulfillmentOrder(order: Order, lines: readonly { lineItemId: number; quantity: number }[], status: FulfillmentOrder["status"], at = this.now()): FulfillmentOrder {
    const fulfillmentOrder: FulfillmentOrder = {
      kind: "FulfillmentOrder",
      id: this.#nextFulfillmentOrder++,
      orderId: order.id,
      status,
      lineItems: lines.map((l) => ({ kind: "FulfillmentOrderLineItem", id: this.#nextFulfillmentOrderLineItem++, lineItemId: l.lineItemId, totalQuantity: l.quantity, remainingQuantity: l.quantity })),
      holds: [],
      createdAt: at,
      updatedAt: at,
    };
    order.fulfillmentOrders.push(fulfillmentOrder);
    return fulfillmentOrder;
  }

  nextFulfillmentHoldId(): number {
    return this.#nextFulfillmentHold++;
  }

  fulfillmentOrder(id: number): FulfillmentOrder | undefined {
    for (const order of this.orders) {
      const found = order.fulfillmentOrders.find((f) => f.id === id);
      if (found) return found;
    }
    return undefined;
  }

  fulfillmentOrderLineItem(id: number): FulfillmentOrderLineItem | undefined {
    for (const order of this.orders) {
      for (const fulfillmentOrder of order.fulfillmentOrders) {
        const found = fulfillmentOrder.lineItems.find((l) => l.id === id);
        if (found) return found;
      }
    }
    return undefined;
  }

  fulfillmentHold(id: number): FulfillmentHold | undefined {
    for (const order of this.orders) {
      for (const fulfillmentOrder of order.fulfillmentOrders) {
        const found = fulfillmentOrder.holds.find((h) => h.id === id);
        if (found) return found;
      }
    }
    return undefined;
  }

  nextSellingPlanGroupId(): number {
    return this.#nextGroup++;
  }

  nextSellingPlanId(): number {
    return this.#nextPlan++;
  }

  #ownerMetafields(ownerType: MetafieldOwnerType, ownerId: number, create: true): Map<string, Metafield>;
  #ownerMetafields(ownerType: MetafieldOwnerType, ownerId: number, create: false): Map<string, Metafield> | undefined;
  #ownerMetafields(ownerType: MetafieldOwnerType, ownerId: number, create: boolean): Map<string, Metafield> | undefined {
    const owner = `${ownerType}:${ownerId}`;
    let found = this.#metafields.get(owner);
    if (!found && create) this.#metafields.set(owner, (found = new Map<string, Metafield>()));
    return found;
  }

  /** The owner's metafields, ascending by id. */
  metafieldsOf(ownerType: MetafieldOwnerType, ownerId: number): Metafield[] {
    return [...(this.#ownerMetafields(ownerType, ownerId, false)?.values() ?? [])].sort((a, b) => a.id - b.id);
  }

  metafield(ownerType: MetafieldOwnerType, ownerId: number, namespace: string, key: string): Metafield | undefined {
    return this.#ownerMetafields(ownerType, ownerId, false)?.get(metafieldKey(namespace, key));
  }

  metafieldById(id: number): Metafield | undefined {
    for (const owner of this.#metafields.values()) {
      for (const metafield of owner.values()) if (metafield.id === id) return metafield;
    }
    return undefined;
  }

  /** Every metafield, for a snapshot. */
  allMetafields(): Metafield[] {
    return [...this.#metafields.values()].flatMap((owner) => [...owner.values()]);
  }

  /**
   * Creates the metafield or changes its value and type; an unchanged value and type change
   * nothing (updatedAt stays). Answers the metafield.
   */
  putMetafield(fields: Pick<Metafield, "ownerType" | "ownerId" | "namespace" | "key" | "value" | "type">): Metafield {
    const owner = this.#ownerMetafields(fields.ownerType, fields.ownerId, true);
    const key = metafieldKey(fields.namespace, fields.key);
    const existing = owner.get(key);
    if (existing) {
      if (existing.value !== fields.value || existing.type !== fields.type) {
        existing.value = fields.value;
        existing.type = fields.type;
        existing.updatedAt = this.now();
      }
      return existing;
    }
    const at = this.now();
    const created: Metafield = { kind: "Metafield", id: this.#nextMetafield++, ...fields, createdAt: at, updatedAt: at };
    owner.set(key, created);
    return created;
  }

  /** Deletes the metafield; answers whether there was one. */
  deleteMetafield(ownerType: MetafieldOwnerType, ownerId: number, namespace: string, key: string): boolean {
    return this.#ownerMetafields(ownerType, ownerId, false)?.delete(metafieldKey(namespace, key)) ?? false;
  }

  touchProduct(product: Product, at = this.now()): void {
    product.updatedAt = at;
    this.#productsVersion++;
  }

  touchVariant(variant: Variant, at = this.now()): void {
    variant.updatedAt = at;
    this.#variantsVersion++;
  }

  /** Product indexes in (updatedAt, id) order. */
  productsByUpdated(): Int32Array {
    if (this.#productsByUpdated?.version !== this.#productsVersion) {
      this.#productsByUpdated = { version: this.#productsVersion, order: sortByUpdated(this.products) };
    }
    return this.#productsByUpdated.order;
  }

  /** Variant indexes in (updatedAt, id) order. */
  variantsByUpdated(): Int32Array {
    if (this.#variantsByUpdated?.version !== this.#variantsVersion) {
      this.#variantsByUpdated = { version: this.#variantsVersion, order: sortByUpdated(this.variants) };
    }
    return this.#variantsByUpdated.order;
  }
}

function metafieldKey(namespace: string, key: string): string {
  return `${namespace}\t${key}`;
}

function sortByUpdated(rows: readonly { updatedAt: number; id: number }[]): Int32Array {
  const order = new Int32Array(rows.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  const updatedAt = Float64Array.from(rows, (r) => r.updatedAt);
  // Ids ascend with the index, so the index breaks ties the same way the id would.
  return order.sort((a, b) => (updatedAt[a] ?? 0) - (updatedAt[b] ?? 0) || a - b);
}
