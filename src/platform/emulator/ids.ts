/**
 * Global ids and cursors. The store keeps numeric ids; gids are computed on output, so a
 * 100,000-variant catalog holds no id strings.
 *
 * Each type's ids start at its own large base, as on the platform: a variant id is never also an
 * inventory item or product id, and ids exceed 32 bits, so a client that confuses them or stores
 * them in an int column fails here rather than in production.
 */
export const ID_BASE = {
  Shop: 0,
  Product: 8_000_000_000_000,
  ProductVariant: 44_000_000_000_000,
  InventoryItem: 46_000_000_000_000,
  Location: 70_000_000_000,
  Market: 1_000_000,
  Collection: 400_000_000_000,
  Customer: 6_000_000_000_000,
  Order: 5_000_000_000_000,
  LineItem: 13_000_000_000_000,
  SellingPlanGroup: 1_000_000_000,
  SellingPlan: 2_000_000_000,
  Metafield: 30_000_000_000,
  FulfillmentOrder: 7_000_000_000_000,
  FulfillmentOrderLineItem: 16_000_000_000_000,
  FulfillmentHold: 900_000_000,
} as const;

/** The emulator serves one shop: its id (`gid://shopify/Shop/1`), the owner of shop metafields. */
export const SHOP_ID = 1;

export function gid(type: string, id: number): string {
  return `gid://shopify/${type}/${id}`;
}

interface ParsedGid {
  type: string;
  id: number;
  /** The query part, as inventory level ids carry it (`?inventory_item_id=…`). */
  params: URLSearchParams;
}

const GID = /^gid:\/\/shopify\/([A-Za-z]+)\/(\d{1,16})(?:\?(.*))?$/;

export function parseGid(value: string): ParsedGid | undefined {
  const match = GID.exec(value);
  if (!match?.[1] || !match[2]) return undefined;
  const id = Number(match[2]);
  if (!Number.isSafeInteger(id)) return undefined;
  return { type: match[1], id, params: new URLSearchParams(match[3] ?? "") };
}

/** A gid of the given type, or a bare legacy number (as the admin routes and webhooks use), to its number. */
export function legacyIdOf(type: string, value: unknown): number | undefined {
  if (typeof value === "number") return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  if (typeof value !== "string") return undefined;
  if (/^\d{1,16}$/.test(value)) return Number(value);
  const parsed = parseGid(value);
  return parsed?.type === type ? parsed.id : undefined;
}

export function inventoryLevelGid(locationId: number, inventoryItemId: number): string {
  return `gid://shopify/InventoryLevel/${locationId}?inventory_item_id=${inventoryItemId}`;
}

/**
 * Cursors are opaque to clients; like the platform's they are base64 JSON of the last row's id and,
 * for other sort keys, its sort value, so a page continues after that key even if the row changed.
 */
export interface CursorKey {
  lastId: number;
  lastValue: number;
}

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify({ last_id: key.lastId, last_value: key.lastValue })).toString("base64");
}

export function decodeCursor(cursor: string): CursorKey | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64").toString("utf8"));
    if (typeof value !== "object" || value === null) return undefined;
    const { last_id: lastId, last_value: lastValue } = value as Record<string, unknown>;
    if (typeof lastId !== "number" || typeof lastValue !== "number") return undefined;
    return { lastId, lastValue };
  } catch {
    return undefined;
  }
}
