import { z } from "zod";
import type { PlatformRequester, RequestOptions } from "../client.ts";
import { PlatformError, expectNoUserErrors } from "../errors.ts";
import { collect, connectionSchema, MAX_PAGE_SIZE, paginate } from "../paginate.ts";
import { largestBatch } from "./cost.ts";
import { parseAnswer } from "./parse.ts";
import { userErrorsSchema } from "./user-errors.ts";

/**
 * Fulfillment orders: an order's, with their line items and holds, and `fulfillmentOrderHold` /
 * `fulfillmentOrderReleaseHold`. A hold moves a fulfillment order to ON_HOLD; given some of its
 * line items, the platform splits it first and the rest stays OPEN in a new one. An app can keep
 * up to 10 holds on one fulfillment order, each with its own handle; a release names the holds it
 * releases, so other apps' and the merchant's holds stay.
 */

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

/** Line items fetched with each fulfillment order; one with more gets the rest in its own queries. */
const LINES_PER_FULFILLMENT_ORDER = 40;

const holdSchema = z.object({ id: z.string(), handle: z.string().nullable(), reason: z.string(), reasonNotes: z.string().nullable(), heldByRequestingApp: z.boolean() });
export type FulfillmentHold = z.infer<typeof holdSchema>;

const lineSchema = z.object({ id: z.string(), totalQuantity: z.number().int(), remainingQuantity: z.number().int(), lineItem: z.object({ id: z.string() }) });
export type FulfillmentOrderLine = z.infer<typeof lineSchema>;

const linePage = connectionSchema(lineSchema);
const fulfillmentOrderNodeSchema = z.object({ id: z.string(), status: z.string(), fulfillmentHolds: z.array(holdSchema), lineItems: linePage });

export interface FulfillmentOrder {
  id: string;
  status: string;
  fulfillmentHolds: FulfillmentHold[];
  lineItems: FulfillmentOrderLine[];
}

const LINE_FIELDS = "nodes { id totalQuantity remainingQuantity lineItem { id } } pageInfo { hasNextPage endCursor }";

// Each document is exported: test/platform-client.test.ts validates every one against the schema.
export const ORDER_FULFILLMENT_ORDERS = `query OrderFulfillmentOrders($id: ID!, $first: Int, $after: String, $lines: Int) {
  order(id: $id) {
    fulfillmentOrders(first: $first, after: $after) {
      nodes {
        id status
        fulfillmentHolds { id handle reason reasonNotes heldByRequestingApp }
        lineItems(first: $lines) { ${LINE_FIELDS} }
      }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

export const FULFILLMENT_ORDER_LINE_ITEMS = `query FulfillmentOrderLineItems($id: ID!, $first: Int, $after: String) {
  node(id: $id) { ... on FulfillmentOrder { lineItems(first: $first, after: $after) { ${LINE_FIELDS} } } }
}`;

export const FULFILLMENT_ORDER_HOLD = `mutation FulfillmentOrderHold($id: ID!, $fulfillmentHold: FulfillmentOrderHoldInput!) {
  fulfillmentOrderHold(id: $id, fulfillmentHold: $fulfillmentHold) {
    fulfillmentHold { id handle reason reasonNotes }
    fulfillmentOrder { id status }
    remainingFulfillmentOrder { id status }
    userErrors { field message code }
  }
}`;

export const FULFILLMENT_ORDER_RELEASE_HOLD = `mutation FulfillmentOrderReleaseHold($id: ID!, $holdIds: [ID!]) {
  fulfillmentOrderReleaseHold(id: $id, holdIds: $holdIds) {
    fulfillmentOrder { id status }
    userErrors { field message code }
  }
}`;

const listAnswer = z.object({ order: z.object({ fulfillmentOrders: connectionSchema(fulfillmentOrderNodeSchema) }).nullable() });
const linesAnswer = z.object({ node: z.object({ lineItems: linePage.optional() }).nullable() });
const statusSchema = z.object({ id: z.string(), status: z.string() });
const holdAnswer = z.object({
  fulfillmentOrderHold: z.object({
    fulfillmentHold: z.object({ id: z.string(), handle: z.string().nullable(), reason: z.string(), reasonNotes: z.string().nullable() }).nullable(),
    fulfillmentOrder: statusSchema.nullable(),
    remainingFulfillmentOrder: statusSchema.nullable(),
    userErrors: userErrorsSchema,
  }),
});
const releaseAnswer = z.object({ fulfillmentOrderReleaseHold: z.object({ fulfillmentOrder: statusSchema.nullable(), userErrors: userErrorsSchema }) });

/** What one fulfillment order costs in ORDER_FULFILLMENT_ORDERS: itself 1, its holds 1, its line connection 2, each line 1 + its line item 1. */
const FULFILLMENT_ORDER_COST = 4 + 2 * LINES_PER_FULFILLMENT_ORDER;

const EMPTY_PAGE = { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } };

/** The order's fulfillment orders, each with all its line items and holds; null when there is no such order. */
export async function getFulfillmentOrders(client: PlatformRequester, orderId: string, options?: RequestOptions): Promise<FulfillmentOrder[] | null> {
  let found = true;
  const nodes = await collect(
    paginate(
      client,
      ORDER_FULFILLMENT_ORDERS,
      { id: orderId, lines: LINES_PER_FULFILLMENT_ORDER },
      (data) => {
        const order = parseAnswer(listAnswer, data, "order").order;
        if (!order) found = false;
        return order?.fulfillmentOrders ?? EMPTY_PAGE;
      },
      // The order 1 and the connection 2 per page.
      largestBatch(FULFILLMENT_ORDER_COST, 3),
      options,
    ),
  );
  if (!found) return null;
  return Promise.all(
    nodes.map(async ({ lineItems, ...rest }) => {
      if (!lineItems.pageInfo.hasNextPage) return { ...rest, lineItems: lineItems.nodes };
      const all = await collect(
        paginate(client, FULFILLMENT_ORDER_LINE_ITEMS, { id: rest.id }, (data) => parseAnswer(linesAnswer, data, "node").node?.lineItems ?? EMPTY_PAGE, MAX_PAGE_SIZE, options),
      );
      return { ...rest, lineItems: all };
    }),
  );
}

export interface FulfillmentHoldInput {
  reason: FulfillmentHoldReason;
  reasonNotes?: string | null;
  /** Unique among this app's holds on the fulfillment order (at most 64 characters); "" when left out. */
  handle?: string;
  notifyMerchant?: boolean;
  /** Hold only these quantities of these fulfillment order line items: the platform splits the rest off. Left out: the whole fulfillment order. */
  fulfillmentOrderLineItems?: { id: string; quantity: number }[];
}

export interface HoldResult {
  fulfillmentHold: { id: string; handle: string | null; reason: string; reasonNotes: string | null };
  fulfillmentOrder: { id: string; status: string };
  remainingFulfillmentOrder: { id: string; status: string } | null;
}

/** Places a hold on the fulfillment order; user errors throw (kind user_errors). */
export async function holdFulfillmentOrder(client: PlatformRequester, id: string, hold: FulfillmentHoldInput, options?: RequestOptions): Promise<HoldResult> {
  const data = await client.request<unknown>(FULFILLMENT_ORDER_HOLD, { id, fulfillmentHold: hold }, options);
  const payload = expectNoUserErrors(parseAnswer(holdAnswer, data, "fulfillmentOrderHold").fulfillmentOrderHold, "fulfillmentOrderHold");
  if (!payload.fulfillmentHold || !payload.fulfillmentOrder) {
    throw new PlatformError("fulfillmentOrderHold: answered no hold and no user error", { kind: "graphql", attempts: 0 });
  }
  return { fulfillmentHold: payload.fulfillmentHold, fulfillmentOrder: payload.fulfillmentOrder, remainingFulfillmentOrder: payload.remainingFulfillmentOrder };
}

/** Releases the given holds of the fulfillment order (never all of them: other holds stay); answers its status after. */
export async function releaseFulfillmentOrderHolds(client: PlatformRequester, id: string, holdIds: readonly string[], options?: RequestOptions): Promise<{ id: string; status: string }> {
  // Without holdIds the platform releases every hold, the merchant's and other apps' too.
  if (holdIds.length === 0) throw new Error("releaseFulfillmentOrderHolds: name the holds to release");
  const data = await client.request<unknown>(FULFILLMENT_ORDER_RELEASE_HOLD, { id, holdIds }, options);
  const payload = expectNoUserErrors(parseAnswer(releaseAnswer, data, "fulfillmentOrderReleaseHold").fulfillmentOrderReleaseHold, "fulfillmentOrderReleaseHold");
  if (!payload.fulfillmentOrder) throw new PlatformError("fulfillmentOrderReleaseHold: answered no fulfillment order and no user error", { kind: "graphql", attempts: 0 });
  return payload.fulfillmentOrder;
}
