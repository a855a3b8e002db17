import { gid, inventoryLevelGid } from "../ids.ts";
import type { OrderEditEvent } from "../context.ts";
import type { Customer, InventoryLevelView, Order, Product } from "../model.ts";
import { formatCents, iso } from "../money.ts";
import type { Store } from "../store.ts";

/** Webhook bodies in the shape of the platform's REST webhooks: snake_case, legacy numeric ids. */

export function inventoryLevelPayload(store: Store, level: InventoryLevelView) {
  const inventoryItemId = store.inventoryItemId(level.variantIndex);
  return {
    inventory_item_id: inventoryItemId,
    location_id: level.location.id,
    available: level.location.levels?.available[level.variantIndex] ?? 0,
    updated_at: iso(level.location.levels?.updatedAt[level.variantIndex] ?? 0),
    admin_graphql_api_id: inventoryLevelGid(level.location.id, inventoryItemId),
  };
}

function customerPayload(customer: Customer | undefined) {
  if (!customer) return null;
  return { id: customer.id, email: customer.email, phone: customer.phone, first_name: customer.firstName };
}

export function orderPayload(store: Store, order: Order) {
  return {
    id: order.id,
    admin_graphql_api_id: gid("Order", order.id),
    name: order.name,
    email: order.email,
    created_at: iso(order.createdAt),
    updated_at: iso(order.updatedAt),
    cancelled_at: order.cancelledAt === null ? null : iso(order.cancelledAt),
    financial_status: order.financialStatus,
    fulfillment_status: order.fulfillmentStatus,
    currency: order.currencyCode,
    total_price: formatCents(order.totalCents),
    total_outstanding: formatCents(order.outstandingCents),
    tags: order.tags.join(", "),
    note_attributes: (order.customAttributes ?? []).map((a) => ({ name: a.key, value: a.value })),
    po_number: order.poNumber ?? null,
    payment_gateway_names: order.paymentGatewayNames ?? [],
    // Where it was placed (web, pos, shopify_draft_order) and, for a point of sale's order, its location.
    source_name: order.sourceName ?? "web",
    location_id: order.retailLocationId ?? null,
    customer: customerPayload(order.customerId === null ? undefined : store.customer(order.customerId)),
    line_items: order.lineItems.map((line) => ({
      id: line.id,
      variant_id: line.variantId,
      product_id: line.productId,
      quantity: line.quantity,
      // What order edits left of it (quantity stays what was ordered, as on the platform).
      current_quantity: line.currentQuantity ?? line.quantity,
      price: formatCents(line.priceCents),
      selling_plan_allocation: line.sellingPlanId === null ? null : { selling_plan_id: line.sellingPlanId },
      properties: line.properties ?? [],
    })),
  };
}

/** The orders/edited body: the edit, with the line items it removed and by how much. */
export function orderEditPayload(edit: OrderEditEvent) {
  return {
    order_edit: {
      id: edit.id,
      order_id: edit.orderId,
      created_at: iso(edit.createdAt),
      committed_at: iso(edit.createdAt),
      notify_customer: false,
      line_items: { additions: [], removals: edit.removals.map((r) => ({ id: r.lineItemId, delta: r.delta })) },
    },
  };
}

export function productPayload(store: Store, product: Product) {
  return {
    id: product.id,
    admin_graphql_api_id: gid("Product", product.id),
    title: product.title,
    handle: product.handle,
    status: product.status.toLowerCase(),
    vendor: product.vendor,
    product_type: product.productType,
    // A comma-separated string, as the platform's REST shape has it.
    tags: product.tags.join(", "),
    created_at: iso(product.createdAt),
    updated_at: iso(product.updatedAt),
    variants: store.variantsOf(product).map((v) => ({
      id: v.id,
      admin_graphql_api_id: gid("ProductVariant", v.id),
      product_id: product.id,
      title: v.title,
      sku: v.sku,
      price: formatCents(v.priceCents),
      inventory_policy: v.inventoryPolicy.toLowerCase(),
      inventory_item_id: store.inventoryItemId(store.variantIndex(v)),
      inventory_quantity: store.inventoryQuantity(store.variantIndex(v)),
      updated_at: iso(v.updatedAt),
    })),
  };
}
