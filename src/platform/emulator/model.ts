/**
 * The emulator's records. Numeric ids and millisecond timestamps; the GraphQL layer turns them into
 * gids and ISO strings. Every record carries `kind`, its GraphQL type name, which resolves the
 * `Node` interface and names the type in its gid.
 */

export type ProductStatus = "ACTIVE" | "DRAFT";
export type InventoryPolicy = "DENY" | "CONTINUE";

export interface Product {
  readonly kind: "Product";
  readonly id: number;
  title: string;
  readonly handle: string;
  status: ProductStatus;
  tags: string[];
  vendor: string | null;
  productType: string | null;
  readonly createdAt: number;
  updatedAt: number;
  /** Ascending. */
  collectionIds: number[];
  /** A product's variants are contiguous in `Store.variants`, from this index. */
  readonly firstVariant: number;
  readonly variantCount: number;
}

export interface Variant {
  readonly kind: "ProductVariant";
  readonly id: number;
  readonly productId: number;
  title: string;
  sku: string | null;
  priceCents: number;
  inventoryPolicy: InventoryPolicy;
  tracked: boolean;
  readonly createdAt: number;
  updatedAt: number;
}

/** One location's quantities, indexed like `Store.variants` (an inventory item per variant). */
export interface LevelTable {
  readonly available: Int32Array;
  readonly updatedAt: Float64Array;
}

export interface Location {
  readonly kind: "Location";
  readonly id: number;
  name: string;
  isActive: boolean;
  /** Null for a location that stocks nothing (the inactive one). */
  readonly levels: LevelTable | null;
}

export interface Market {
  readonly kind: "Market";
  readonly id: number;
  name: string;
  enabled: boolean;
  primary: boolean;
  countryCodes: string[];
  locationIds: number[];
}

export interface Collection {
  readonly kind: "Collection";
  readonly id: number;
  title: string;
  readonly handle: string;
  updatedAt: number;
}

export interface Customer {
  readonly kind: "Customer";
  readonly id: number;
  email: string | null;
  phone: string | null;
  firstName: string | null;
  tags: string[];
  updatedAt: number;
}

export type FinancialStatus = "pending" | "partially_paid" | "paid";

export interface LineItem {
  readonly kind: "LineItem";
  readonly id: number;
  readonly variantId: number;
  readonly productId: number;
  readonly quantity: number;
  readonly priceCents: number;
  readonly sellingPlanId: number | null;
  /** The line item properties the cart gave it (the REST payload's `properties`); absent in older saved state: none. */
  readonly properties?: readonly { name: string; value: string }[];
  /** quantity less what order edits removed; absent (state saved before order edits): quantity. */
  currentQuantity?: number;
}

/** A custom attribute (a draft order's, and so the order's: the REST payload's note_attributes). */
export interface Attribute {
  readonly key: string;
  readonly value: string | null;
}

export interface Order {
  readonly kind: "Order";
  readonly id: number;
  readonly name: string;
  email: string | null;
  customerId: number | null;
  readonly createdAt: number;
  updatedAt: number;
  cancelledAt: number | null;
  financialStatus: FinancialStatus;
  fulfillmentStatus: "fulfilled" | null;
  readonly currencyCode: string;
  readonly totalCents: number;
  outstandingCents: number;
  tags: string[];
  readonly lineItems: LineItem[];
  /** One per order at creation, holding all its line items; a hold on some of its items splits it. In creation order. */
  readonly fulfillmentOrders: FulfillmentOrder[];
  /** Set when a draft order is completed into this order (absent otherwise, and in older states). */
  customAttributes?: Attribute[];
  poNumber?: string | null;
  paymentGatewayNames?: string[];
  /**
   * Where the order was placed, as the platform names it (the REST payload's `source_name`, the
   * Admin API's `sourceName`): `web` (the online store's checkout, and the default of an order
   * without one, as in older saved state), `pos` (the point of sale), `shopify_draft_order`.
   */
  sourceName?: string;
  /** The point of sale's location (the REST payload's `location_id`, the Admin API's `retailLocation`); absent: none. */
  retailLocationId?: number | null;
}

/** The platform's FulfillmentOrderStatus; the emulator reaches OPEN, ON_HOLD, CLOSED and CANCELLED. */
export type FulfillmentOrderStatus = "OPEN" | "ON_HOLD" | "CLOSED" | "CANCELLED" | "IN_PROGRESS" | "SCHEDULED" | "INCOMPLETE";

export interface FulfillmentOrderLineItem {
  readonly kind: "FulfillmentOrderLineItem";
  readonly id: number;
  /** The order's line item this is (part of). */
  readonly lineItemId: number;
  totalQuantity: number;
  remainingQuantity: number;
}

/** The platform's FulfillmentHoldReason. */
export const FULFILLMENT_HOLD_REASONS = [
  "AWAITING_PAYMENT",
  "AWAITING_RETURN_ITEMS",
  "HIGH_RISK_OF_FRAUD",
  "INCORRECT_ADDRESS",
  "INVENTORY_OUT_OF_STOCK",
  "ONLINE_STORE_POST_PURCHASE_CROSS_SELL",
  "OTHER",
  "UNKNOWN_DELIVERY_DATE",
] as const;
export type FulfillmentHoldReason = (typeof FULFILLMENT_HOLD_REASONS)[number];

export interface FulfillmentHold {
  readonly kind: "FulfillmentHold";
  readonly id: number;
  readonly reason: FulfillmentHoldReason;
  readonly reasonNotes: string | null;
  /** Unique among one app's holds on one fulfillment order; "" by default. */
  readonly handle: string;
  /** The app that placed it. */
  readonly appId: number;
  readonly createdAt: number;
}

export interface FulfillmentOrder {
  readonly kind: "FulfillmentOrder";
  readonly id: number;
  readonly orderId: number;
  status: FulfillmentOrderStatus;
  readonly lineItems: FulfillmentOrderLineItem[];
  /** The holds in force, oldest first; the order is ON_HOLD while there is one. */
  holds: FulfillmentHold[];
  readonly createdAt: number;
  updatedAt: number;
}

export interface ChargeValue {
  percentage: number | null;
  /** Decimal string. */
  fixedValue: string | null;
}

export interface BillingPolicy {
  checkoutCharge: { type: string; value: ChargeValue };
  remainingBalanceChargeTrigger: string;
  remainingBalanceChargeExactTime: number | null;
  remainingBalanceChargeTimeAfterCheckout: string | null;
}

export interface DeliveryPolicy {
  fulfillmentTrigger: string;
  fulfillmentExactTime: number | null;
}

export interface PricingPolicy {
  adjustmentType: string;
  adjustmentValue: ChargeValue;
}

export interface SellingPlan {
  readonly kind: "SellingPlan";
  readonly id: number;
  readonly groupId: number;
  name: string;
  description: string | null;
  options: string[];
  position: number | null;
  category: string | null;
  billingPolicy: BillingPolicy | null;
  deliveryPolicy: DeliveryPolicy | null;
  inventoryPolicy: { reserve: string } | null;
  pricingPolicies: PricingPolicy[];
}

export interface SellingPlanGroup {
  readonly kind: "SellingPlanGroup";
  readonly id: number;
  name: string;
  merchantCode: string;
  description: string | null;
  options: string[];
  position: number | null;
  /** In creation order. */
  planIds: number[];
  variantIds: Set<number>;
  productIds: Set<number>;
}

export type MetafieldOwnerType = "PRODUCT" | "PRODUCTVARIANT" | "SHOP" | "CUSTOMER";

/** A typed value on a product, variant, customer or the shop, under a namespace (already resolved: `app--<id>--x`, never `$app`) and key. */
export interface Metafield {
  readonly kind: "Metafield";
  readonly id: number;
  readonly ownerType: MetafieldOwnerType;
  readonly ownerId: number;
  readonly namespace: string;
  readonly key: string;
  value: string;
  type: string;
  readonly createdAt: number;
  updatedAt: number;
}

/** Views built on demand: the store keeps neither items nor levels as objects. */
export interface InventoryItemView {
  readonly kind: "InventoryItem";
  readonly id: number;
  readonly variantIndex: number;
}

export interface InventoryLevelView {
  readonly kind: "InventoryLevel";
  readonly location: Location;
  readonly variantIndex: number;
}

export type NodeRecord =
  | Product
  | Variant
  | InventoryItemView
  | InventoryLevelView
  | Location
  | Market
  | Collection
  | Customer
  | Order
  | LineItem
  | FulfillmentOrder
  | FulfillmentOrderLineItem
  | FulfillmentHold
  | SellingPlan
  | SellingPlanGroup
  | Metafield;
