import { z } from "zod";
import type { PlatformRequester, RequestOptions } from "../client.ts";
import { PlatformError, expectNoUserErrors } from "../errors.ts";
import { parseAnswer } from "./parse.ts";
import { userErrorsSchema } from "./user-errors.ts";

/**
 * What splitting preorder items off needs (decision 0204): `fulfillmentOrderSplit` (the preorder
 * items of a fulfillment order into one of their own), an order's line items with what edits left
 * of them, order edits (`orderEditBegin`, `orderEditSetQuantity`, `orderEditCommit`: quantities
 * down to 0 on the original order), and draft orders (`draftOrderCreate`, `draftOrderComplete`:
 * the new order of the moved items), with `draftOrder` to find a draft completed by an attempt
 * that did not get to record it. Each mutation's user errors throw (kind user_errors).
 */

// Each document is exported: test/platform-client.test.ts validates every one against the schema.
export const FULFILLMENT_ORDER_SPLIT = `mutation FulfillmentOrderSplit($splits: [FulfillmentOrderSplitInput!]!) {
  fulfillmentOrderSplit(fulfillmentOrderSplits: $splits) {
    fulfillmentOrderSplits { fulfillmentOrder { id status } remainingFulfillmentOrder { id status } }
    userErrors { field message code }
  }
}`;

export const ORDER_LINE_QUANTITIES = `query OrderLineQuantities($id: ID!, $first: Int) {
  order(id: $id) { id name lineItems(first: $first) { nodes { id quantity currentQuantity variant { id } } } }
}`;

export const ORDER_EDIT_BEGIN = `mutation OrderEditBegin($id: ID!) {
  orderEditBegin(id: $id) { calculatedOrder { id } userErrors { field message } }
}`;

export const ORDER_EDIT_SET_QUANTITY = `mutation OrderEditSetQuantity($id: ID!, $lineItemId: ID!, $quantity: Int!, $restock: Boolean) {
  orderEditSetQuantity(id: $id, lineItemId: $lineItemId, quantity: $quantity, restock: $restock) {
    calculatedLineItem { id quantity }
    userErrors { field message }
  }
}`;

export const ORDER_EDIT_COMMIT = `mutation OrderEditCommit($id: ID!, $notifyCustomer: Boolean, $staffNote: String) {
  orderEditCommit(id: $id, notifyCustomer: $notifyCustomer, staffNote: $staffNote) { order { id } userErrors { field message } }
}`;

export const DRAFT_ORDER_CREATE = `mutation DraftOrderCreate($input: DraftOrderInput!) {
  draftOrderCreate(input: $input) { draftOrder { id name status } userErrors { field message } }
}`;

// paymentPending (deprecated) is left at its default, false: the draft is completed paid.
export const DRAFT_ORDER_COMPLETE = `mutation DraftOrderComplete($id: ID!, $paymentGatewayId: ID) {
  draftOrderComplete(id: $id, paymentGatewayId: $paymentGatewayId) {
    draftOrder { id status order { id name } }
    userErrors { field message }
  }
}`;

export const OPEN_DRAFT_ORDERS = `query OpenDraftOrders($first: Int!, $after: String, $query: String) {
  draftOrders(first: $first, after: $after, query: $query) { nodes { id poNumber customAttributes { key value } } pageInfo { hasNextPage endCursor } }
}`;

export const DRAFT_ORDER = `query DraftOrder($id: ID!) {
  draftOrder(id: $id) { id status order { id name } }
}`;

/** Line items fetched with an order: a split order's lines fit in one page (the platform's page maximum). */
const MAX_LINES = 250;

const idStatus = z.object({ id: z.string(), status: z.string() });
const splitAnswer = z.object({
  fulfillmentOrderSplit: z.object({
    fulfillmentOrderSplits: z.array(z.object({ fulfillmentOrder: idStatus, remainingFulfillmentOrder: idStatus })).nullable(),
    userErrors: userErrorsSchema,
  }),
});

/** Moves these quantities of the fulfillment order's line items into a new fulfillment order; answers the new one. */
export async function splitFulfillmentOrder(client: PlatformRequester, fulfillmentOrderId: string, lines: readonly { id: string; quantity: number }[], options?: RequestOptions): Promise<{ id: string; status: string }> {
  const data = await client.request<unknown>(FULFILLMENT_ORDER_SPLIT, { splits: [{ fulfillmentOrderId, fulfillmentOrderLineItems: lines }] }, options);
  const payload = expectNoUserErrors(parseAnswer(splitAnswer, data, "fulfillmentOrderSplit").fulfillmentOrderSplit, "fulfillmentOrderSplit");
  const result = payload.fulfillmentOrderSplits?.[0];
  if (!result) throw new PlatformError("fulfillmentOrderSplit: answered no split and no user error", { kind: "graphql", attempts: 0 });
  return result.remainingFulfillmentOrder;
}

const lineQuantitiesAnswer = z.object({
  order: z
    .object({
      id: z.string(),
      name: z.string(),
      lineItems: z.object({ nodes: z.array(z.object({ id: z.string(), quantity: z.number().int(), currentQuantity: z.number().int(), variant: z.object({ id: z.string() }).nullable() })) }),
    })
    .nullable(),
});

export interface OrderLineQuantity {
  id: string;
  quantity: number;
  currentQuantity: number;
  variantId: string | null;
}

/** The order's name and line items with what edits left of each; null when there is no such order. */
export async function getOrderLineQuantities(client: PlatformRequester, orderId: string, options?: RequestOptions): Promise<{ name: string; lines: OrderLineQuantity[] } | null> {
  const data = await client.request<unknown>(ORDER_LINE_QUANTITIES, { id: orderId, first: MAX_LINES }, options);
  const order = parseAnswer(lineQuantitiesAnswer, data, "order").order;
  if (!order) return null;
  return { name: order.name, lines: order.lineItems.nodes.map((l) => ({ id: l.id, quantity: l.quantity, currentQuantity: l.currentQuantity, variantId: l.variant?.id ?? null })) };
}

const beginAnswer = z.object({ orderEditBegin: z.object({ calculatedOrder: z.object({ id: z.string() }).nullable(), userErrors: userErrorsSchema }) });
const setQuantityAnswer = z.object({ orderEditSetQuantity: z.object({ calculatedLineItem: z.object({ id: z.string(), quantity: z.number() }).nullable(), userErrors: userErrorsSchema }) });
const commitAnswer = z.object({ orderEditCommit: z.object({ order: z.object({ id: z.string() }).nullable(), userErrors: userErrorsSchema }) });

/** The line item's id in an order edit: the platform's CalculatedLineItem of the same number. */
export function calculatedLineItemId(lineItemId: string): string {
  return lineItemId.replace(/\/LineItem\/(\d+)$/, "/CalculatedLineItem/$1");
}

/**
 * One order edit that sets each given line item's quantity (0 removes it) and commits, without
 * restocking (the units were never taken from stock for a preorder) or telling the customer.
 */
export async function editOrderQuantities(client: PlatformRequester, orderId: string, quantities: readonly { lineItemId: string; quantity: number }[], staffNote: string, options?: RequestOptions): Promise<void> {
  const begun = expectNoUserErrors(parseAnswer(beginAnswer, await client.request<unknown>(ORDER_EDIT_BEGIN, { id: orderId }, options), "orderEditBegin").orderEditBegin, "orderEditBegin");
  const calculatedOrder = begun.calculatedOrder;
  if (!calculatedOrder) throw new PlatformError("orderEditBegin: answered no calculated order and no user error", { kind: "graphql", attempts: 0 });
  for (const { lineItemId, quantity } of quantities) {
    const data = await client.request<unknown>(ORDER_EDIT_SET_QUANTITY, { id: calculatedOrder.id, lineItemId: calculatedLineItemId(lineItemId), quantity, restock: false }, options);
    expectNoUserErrors(parseAnswer(setQuantityAnswer, data, "orderEditSetQuantity").orderEditSetQuantity, "orderEditSetQuantity");
  }
  const data = await client.request<unknown>(ORDER_EDIT_COMMIT, { id: calculatedOrder.id, notifyCustomer: false, staffNote }, options);
  expectNoUserErrors(parseAnswer(commitAnswer, data, "orderEditCommit").orderEditCommit, "orderEditCommit");
}

export interface DraftOrderInput {
  email?: string | null;
  /** The customer the draft is for (DraftOrderInput.customerId is deprecated for it). */
  purchasingEntity?: { customerId: string } | null;
  /** priceOverride: the unit price in place of the variant's catalog price. */
  lineItems: { variantId: string; quantity: number; priceOverride?: { amount: string; currencyCode: string } }[];
  tags?: string[];
  poNumber?: string | null;
  customAttributes?: { key: string; value: string }[];
}

const createAnswer = z.object({ draftOrderCreate: z.object({ draftOrder: z.object({ id: z.string(), name: z.string(), status: z.string() }).nullable(), userErrors: userErrorsSchema }) });
const draftState = z.object({ id: z.string(), status: z.string(), order: z.object({ id: z.string(), name: z.string() }).nullable() });
const completeAnswer = z.object({ draftOrderComplete: z.object({ draftOrder: draftState.nullable(), userErrors: userErrorsSchema }) });
const draftAnswer = z.object({ draftOrder: draftState.nullable() });

/**
 * Creates an open draft order; answers its id. Not retried on a lost answer (the platform may have
 * made it): the caller looks for it (findOpenDraftOrder) before asking again.
 */
export async function createDraftOrder(client: PlatformRequester, input: DraftOrderInput, options?: RequestOptions): Promise<string> {
  const data = await client.request<unknown>(DRAFT_ORDER_CREATE, { input }, { ...options, idempotent: false });
  const payload = expectNoUserErrors(parseAnswer(createAnswer, data, "draftOrderCreate").draftOrderCreate, "draftOrderCreate");
  if (!payload.draftOrder) throw new PlatformError("draftOrderCreate: answered no draft order and no user error", { kind: "graphql", attempts: 0 });
  return payload.draftOrder.id;
}

/** The draft's status and, once completed, its order; null when there is no such draft. */
export async function getDraftOrder(client: PlatformRequester, id: string, options?: RequestOptions): Promise<z.infer<typeof draftState> | null> {
  return parseAnswer(draftAnswer, await client.request<unknown>(DRAFT_ORDER, { id }, options), "draftOrder").draftOrder;
}

/** Completes the draft into an order, paid through the gateway (the store's default when null); answers the order. */
export async function completeDraftOrder(client: PlatformRequester, id: string, paymentGatewayId: string | null, options?: RequestOptions): Promise<{ id: string; name: string }> {
  const data = await client.request<unknown>(DRAFT_ORDER_COMPLETE, { id, paymentGatewayId }, options);
  const payload = expectNoUserErrors(parseAnswer(completeAnswer, data, "draftOrderComplete").draftOrderComplete, "draftOrderComplete");
  const order = payload.draftOrder?.order;
  if (!order) throw new PlatformError("draftOrderComplete: answered no order and no user error", { kind: "graphql", attempts: 0 });
  return order;
}

const openDraftsAnswer = z.object({
  draftOrders: z.object({
    nodes: z.array(z.object({ id: z.string(), poNumber: z.string().nullable(), customAttributes: z.array(z.object({ key: z.string(), value: z.string().nullable() })) })),
    pageInfo: z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() }),
  }),
});

/**
 * The open draft order with this PO number and custom attribute, if any (`tag`: narrows the search
 * to drafts with that tag). How a draft whose creation was never heard of is found again.
 */
export async function findOpenDraftOrder(
  client: PlatformRequester,
  match: { poNumber: string; attribute: { key: string; value: string }; tag?: string | null },
  options?: RequestOptions,
): Promise<string | null> {
  const query = `status:open${match.tag ? ` tag:'${match.tag.replaceAll("'", "")}'` : ""}`;
  let after: string | null = null;
  // Bounded: a store with thousands of open drafts is not read whole on each attempt.
  for (let page = 0; page < MAX_DRAFT_PAGES; page++) {
    const data: unknown = await client.request<unknown>(OPEN_DRAFT_ORDERS, { first: 50, after, query }, options);
    const { nodes, pageInfo } = parseAnswer(openDraftsAnswer, data, "draftOrders").draftOrders;
    const found = nodes.find((d) => d.poNumber === match.poNumber && d.customAttributes.some((a) => a.key === match.attribute.key && a.value === match.attribute.value));
    if (found) return found.id;
    if (!pageInfo.hasNextPage || pageInfo.endCursor === null) return null;
    after = pageInfo.endCursor;
  }
  // Not found in what was read: as if not made (at worst one more open draft, never a stuck split).
  return null;
}

/** Pages of 50 open drafts read at most when looking for one. */
const MAX_DRAFT_PAGES = 20;
