import { z } from "zod";
import type { PlatformRequester, RequestOptions } from "../client.ts";
import { collect, connectionSchema, MAX_PAGE_SIZE, paginate } from "../paginate.ts";
import { largestBatch } from "./cost.ts";
import { customerSchema } from "./customers.ts";
import { decimalSchema, parseAnswer } from "./parse.ts";

const lineItemSchema = z.object({
  id: z.string(),
  quantity: z.number().int(),
  variant: z.object({ id: z.string() }).nullable(),
  sellingPlanId: z.string().nullable(),
  originalUnitPrice: decimalSchema,
});
export type LineItem = z.infer<typeof lineItemSchema>;

const lineItemPage = connectionSchema(lineItemSchema);

const orderNodeSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  cancelledAt: z.string().nullable(),
  displayFinancialStatus: z.string(),
  displayFulfillmentStatus: z.string(),
  currencyCode: z.string(),
  totalPrice: decimalSchema,
  totalOutstanding: decimalSchema,
  tags: z.array(z.string()),
  customer: customerSchema.nullable(),
  lineItems: lineItemPage,
});
type OrderNode = z.infer<typeof orderNodeSchema>;

/** An order with all its line items. */
export type Order = Omit<OrderNode, "lineItems"> & { lineItems: LineItem[] };

const LINE_ITEM_FIELDS = `nodes { id quantity variant { id } sellingPlanId originalUnitPrice } pageInfo { hasNextPage endCursor }`;
const ORDER_FIELDS = `id name email createdAt updatedAt cancelledAt displayFinancialStatus displayFulfillmentStatus
  currencyCode totalPrice totalOutstanding tags
  customer { id email phone firstName tags }
  lineItems(first: $lineItems) { ${LINE_ITEM_FIELDS} }`;

export const GET_ORDER = `query GetOrder($id: ID!, $lineItems: Int) { order(id: $id) { ${ORDER_FIELDS} } }`;

export const ORDER_LINE_ITEMS = `query OrderLineItems($id: ID!, $first: Int, $after: String) {
  order(id: $id) { lineItems(first: $first, after: $after) { ${LINE_ITEM_FIELDS} } }
}`;

export const LIST_ORDERS = `query ListOrders($first: Int, $after: String, $query: String, $lineItems: Int) {
  orders(first: $first, after: $after, query: $query) { nodes { ${ORDER_FIELDS} } pageInfo { hasNextPage endCursor } }
}`;

const getAnswer = z.object({ order: orderNodeSchema.nullable() });
const lineItemsAnswer = z.object({ order: z.object({ lineItems: lineItemPage }).nullable() });
const listAnswer = z.object({ orders: connectionSchema(orderNodeSchema) });

/** The order with every line item, or null when the platform has no order with that id. */
export async function getOrder(client: PlatformRequester, id: string, options?: RequestOptions): Promise<Order | null> {
  const data = await client.request<unknown>(GET_ORDER, { id, lineItems: MAX_PAGE_SIZE }, options);
  const order = parseAnswer(getAnswer, data, "order").order;
  return order ? complete(client, order, options) : null;
}

export interface ListOrdersOptions extends RequestOptions {
  /** Only orders updated strictly after this instant (the platform's `updated_at:>` filter). */
  updatedSince?: Date | string;
  /** Line items fetched with each order; an order with more gets the rest in its own queries. */
  lineItemsPerOrder?: number;
  /** Orders per page; by default as many as the platform's cost cap allows (41 with 10 line items each). */
  pageSize?: number;
}

/**
 * What one order costs in LIST_ORDERS: the order 1, its customer 1, the line item connection 2,
 * and per line item 1 + its variant 1. The orders connection itself adds 2 per page.
 */
function orderCost(lineItemsPerOrder: number): number {
  return 4 + 2 * lineItemsPerOrder;
}

/** Orders in ascending id order, page by page, each with all its line items. */
export async function* listOrders(client: PlatformRequester, options: ListOrdersOptions = {}): AsyncGenerator<Order[], void, undefined> {
  const { updatedSince, lineItemsPerOrder = 10, ...rest } = options;
  const { pageSize = largestBatch(orderCost(lineItemsPerOrder), 2), ...requestOptions } = rest;
  const variables: Record<string, unknown> = { lineItems: lineItemsPerOrder };
  // Re-serialised through Date so a caller's string can never inject other filter terms.
  if (updatedSince !== undefined) variables.query = `updated_at:>'${new Date(updatedSince).toISOString()}'`;
  const pages = paginate(client, LIST_ORDERS, variables, (data) => parseAnswer(listAnswer, data, "orders").orders, pageSize, requestOptions);
  for await (const page of pages) {
    yield await Promise.all(page.map((order) => complete(client, order, requestOptions)));
  }
}

/** Fetches the rest of an order's line items when the first page did not hold them all (rare). */
async function complete(client: PlatformRequester, order: OrderNode, options: RequestOptions | undefined): Promise<Order> {
  const { lineItems, ...rest } = order;
  if (!lineItems.pageInfo.hasNextPage) return { ...rest, lineItems: lineItems.nodes };
  const all = await collect(
    paginate(
      client,
      ORDER_LINE_ITEMS,
      { id: order.id },
      (data) => parseAnswer(lineItemsAnswer, data, "order").order?.lineItems ?? { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } },
      MAX_PAGE_SIZE,
      options,
    ),
  );
  return { ...rest, lineItems: all };
}

export const ORDER_PAYMENT_COLLECTION_URL = `query OrderPaymentCollectionUrl($id: ID!) { order(id: $id) { id totalOutstanding paymentCollectionDetails { additionalPaymentCollectionUrl } } }`;

const paymentCollectionAnswer = z.object({
  order: z.object({ id: z.string(), totalOutstanding: decimalSchema, paymentCollectionDetails: z.object({ additionalPaymentCollectionUrl: z.string().nullable() }) }).nullable(),
});

/**
 * The platform's link where the customer pays what the order still owes (the order's
 * `paymentCollectionDetails.additionalPaymentCollectionUrl`): undefined when the platform has no
 * such order, null when it offers no link (nothing owed).
 */
export async function getPaymentCollectionUrl(client: PlatformRequester, id: string, options?: RequestOptions): Promise<{ url: string | null; outstanding: string } | undefined> {
  const data = await client.request<unknown>(ORDER_PAYMENT_COLLECTION_URL, { id }, options);
  const order = parseAnswer(paymentCollectionAnswer, data, "order").order;
  return order ? { url: order.paymentCollectionDetails.additionalPaymentCollectionUrl, outstanding: order.totalOutstanding } : undefined;
}
