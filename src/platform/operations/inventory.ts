import { z } from "zod";
import type { PlatformRequester, RequestOptions } from "../client.ts";
import { collect, connectionSchema, MAX_PAGE_SIZE, paginate } from "../paginate.ts";
import { chunk, PLATFORM_ARRAY_LIMIT, unique } from "./chunk.ts";
import { largestBatch } from "./cost.ts";
import { parseAnswer } from "./parse.ts";

export interface InventoryAtLocation {
  locationId: string;
  locationName: string;
  /** The `available` quantity: sellable units (on hand minus committed). */
  available: number;
}

export interface VariantInventory {
  variantId: string;
  inventoryItemId: string;
  /** An untracked item is always sellable; its quantities mean nothing. */
  tracked: boolean;
  levels: InventoryAtLocation[];
}

const levelSchema = z.object({
  location: z.object({ id: z.string(), name: z.string() }),
  quantities: z.array(z.object({ name: z.string(), quantity: z.number().int() })),
});
const levelPage = connectionSchema(levelSchema);
type Level = z.infer<typeof levelSchema>;

const variantNodeSchema = z.object({
  id: z.string(),
  inventoryItem: z.object({ id: z.string(), tracked: z.boolean(), inventoryLevels: levelPage }),
});

const LEVEL_FIELDS = `nodes { location { id name } quantities(names: ["available"]) { name quantity } } pageInfo { hasNextPage endCursor }`;

export const VARIANT_LEVELS = `query VariantInventoryLevels($ids: [ID!]!, $levels: Int) {
  nodes(ids: $ids) {
    ... on ProductVariant { id inventoryItem { id tracked inventoryLevels(first: $levels) { ${LEVEL_FIELDS} } } }
  }
}`;

export const ITEM_LEVELS = `query InventoryItemLevels($id: ID!, $first: Int, $after: String) {
  node(id: $id) { ... on InventoryItem { inventoryLevels(first: $first, after: $after) { ${LEVEL_FIELDS} } } }
}`;

// `nodes` answers null for an unknown id and {} for an id of another type (the fragment selects nothing).
const nodesAnswer = z.object({ nodes: z.array(z.union([variantNodeSchema, z.strictObject({}), z.null()])) });
const itemLevelsAnswer = z.object({ node: z.object({ inventoryLevels: levelPage }).partial().nullable() });

export interface InventoryLevelsOptions extends RequestOptions {
  /** Locations fetched with each variant; an item stocked at more gets the rest in its own queries. */
  locationsPerVariant?: number;
  /** Variants per query; by default as many as the platform's cost cap allows, never above 250. */
  chunkSize?: number;
}

/**
 * What one variant costs in VARIANT_LEVELS: the variant 1, its inventory item 1, the levels
 * connection 2, and per level 1 + its location 1 + its quantities 1.
 */
function variantCost(locationsPerVariant: number): number {
  return 4 + 3 * locationsPerVariant;
}

/**
 * The `available` quantity per location for the given variants, read live from the platform
 * through `nodes(ids:)`. Each query carries as many variants as keep it under the platform's
 * single-query cost cap (29 with 10 locations each; 250 ids would cost 8,500 points).
 * Ids the platform does not know as variants are left out.
 */
export async function getInventoryLevels(
  client: PlatformRequester,
  variantIds: readonly string[],
  options: InventoryLevelsOptions = {},
): Promise<VariantInventory[]> {
  const { locationsPerVariant = 10, ...rest } = options;
  const { chunkSize = largestBatch(variantCost(locationsPerVariant)), ...requestOptions } = rest;
  const result: VariantInventory[] = [];
  for (const ids of chunk(unique(variantIds), Math.min(chunkSize, PLATFORM_ARRAY_LIMIT))) {
    const data = await client.request<unknown>(VARIANT_LEVELS, { ids, levels: locationsPerVariant }, requestOptions);
    for (const node of parseAnswer(nodesAnswer, data, "nodes").nodes) {
      if (!node || !("inventoryItem" in node)) continue;
      const item = node.inventoryItem;
      const levels = item.inventoryLevels.pageInfo.hasNextPage
        ? await allLevels(client, item.id, requestOptions)
        : item.inventoryLevels.nodes;
      result.push({ variantId: node.id, inventoryItemId: item.id, tracked: item.tracked, levels: levels.map(available) });
    }
  }
  return result;
}

function available(level: Level): InventoryAtLocation {
  const quantity = level.quantities.find((q) => q.name === "available")?.quantity ?? 0;
  return { locationId: level.location.id, locationName: level.location.name, available: quantity };
}

async function allLevels(client: PlatformRequester, inventoryItemId: string, options: RequestOptions): Promise<Level[]> {
  return collect(
    paginate(
      client,
      ITEM_LEVELS,
      { id: inventoryItemId },
      (data) =>
        parseAnswer(itemLevelsAnswer, data, "node").node?.inventoryLevels ?? { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } },
      MAX_PAGE_SIZE,
      options,
    ),
  );
}
