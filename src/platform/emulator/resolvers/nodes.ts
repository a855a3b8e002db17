import { GraphQLError } from "graphql";
import { parseGid } from "../ids.ts";
import type { NodeRecord } from "../model.ts";
import type { Store } from "../store.ts";

/** A malformed id is an error on the platform, not a null: the client sent something that is no id. */
function invalidId(id: string): GraphQLError {
  return new GraphQLError(`Invalid global id '${id}'`, { extensions: { code: "INVALID_GLOBAL_ID" } });
}

/** The record a gid names, null when there is none; throws for a string that is not a gid. */
export function findNode(store: Store, id: string): NodeRecord | null {
  const parsed = parseGid(id);
  if (!parsed) throw invalidId(id);
  switch (parsed.type) {
    case "Product":
      return store.product(parsed.id) ?? null;
    case "ProductVariant":
      return store.variant(parsed.id) ?? null;
    case "InventoryItem":
      return store.inventoryItem(parsed.id) ?? null;
    case "InventoryLevel": {
      // Its id names the location, and the item in its query part.
      const location = store.location(parsed.id);
      const item = store.inventoryItem(Number(parsed.params.get("inventory_item_id")));
      return location && item ? (store.level(item.variantIndex, location) ?? null) : null;
    }
    case "Location":
      return store.location(parsed.id) ?? null;
    case "Market":
      return store.market(parsed.id) ?? null;
    case "Collection":
      return store.collection(parsed.id) ?? null;
    case "Customer":
      return store.customer(parsed.id) ?? null;
    case "Order":
      return store.order(parsed.id) ?? null;
    case "LineItem":
      for (const order of store.orders) {
        const item = order.lineItems.find((l) => l.id === parsed.id);
        if (item) return item;
      }
      return null;
    case "FulfillmentOrder":
      return store.fulfillmentOrder(parsed.id) ?? null;
    case "FulfillmentOrderLineItem":
      return store.fulfillmentOrderLineItem(parsed.id) ?? null;
    case "FulfillmentHold":
      return store.fulfillmentHold(parsed.id) ?? null;
    case "SellingPlan":
      return store.sellingPlans.get(parsed.id) ?? null;
    case "SellingPlanGroup":
      return store.sellingPlanGroups.get(parsed.id) ?? null;
    case "Metafield":
      return store.metafieldById(parsed.id) ?? null;
    default:
      return null;
  }
}

/** The record if the gid names one of the given type. */
export function findTyped<K extends NodeRecord["kind"]>(store: Store, id: string, kind: K): Extract<NodeRecord, { kind: K }> | null {
  const node = findNode(store, id);
  return node?.kind === kind ? (node as Extract<NodeRecord, { kind: K }>) : null;
}
