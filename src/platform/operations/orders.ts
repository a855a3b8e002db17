import { z } from "zod";
import type { PlatformRequester, RequestOptions } from "../client.ts";
import { collect, connectionSchema, paginate } from "../paginate.ts";
import { largestBatch } from "./cost.ts";
import { CUSTOMER_FIELDS, customerSchema } from "./customers.ts";
import { parseAnswer, shopMoneySchema } from "./parse.ts";

const lineItemSchema = z
  .object({
    id: z.string(),
    quantity: z.number().int(),
    variant: z.object({ id: z.string() }).nullable(),
    sellingPlan: z.object({ sellingPlanId: z.string().nullable() }).nullable(),
    originalUnitPriceSet: shopMoneySchema,
  })
  .transform(({ sellingPlan, originalUnitPriceSet, ...rest }) => ({ ...rest, sellingPlanId: sellingPlan?.sellingPlanId ?? null, originalUnitPrice: originalUnitPriceSet }));
export type LineItem = z.infer<typeof lineItemSchema>;

const lineItemPage = connectionSchema(lineItemSchema);

const orderNodeSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    cancelledAt: z.string().nullable(),
    // OrderDisplayFinancialStatus is nullable on the platform (an order's webhook then has financial_status null).
    displayFinancialStatus: z.string().nullable(),
    displayFulfillmentStatus: z.string(),
    currencyCode: z.string(),
    totalPriceSet: shopMoneySchema,
    totalOutstandingSet: shopMoneySchema,
    tags: z.array(z.string()),
    customer: customerSchema.nullable(),
    lineItems: lineItemPage,
  })
  .transform(({ totalPriceSet, totalOutstandingSet, ...rest }) => ({ ...rest, totalPrice: totalPriceSet, totalOutstanding: totalOutstandingSet }));
type OrderNode = z.output<typeof orderNodeSchema>;

/** An order with all its line items. */
export type Order = Omit<OrderNode, "lineItems"> & { lineItems: LineItem[] };

// Amounts in the shop's currency (currencyCode), as the order webhooks' total_price and price are.
const LINE_ITEM_FIELDS = `nodes { id quantity variant { id } sellingPlan { sellingPlanId } originalUnitPriceSet { shopMoney { amount } } } pageInfo { hasNextPage endCursor }`;
const ORDER_FIELDS = `id name email createdAt updatedAt cancelledAt displayFinancialStatus displayFulfillmentStatus
  currencyCode totalPriceSet { shopMoney { amount } } totalOutstandingSet { shopMoney { amount } } tags
  customer { ${CUSTOMER_FIELDS} }
  lineItems(first: $lineItems) { ${LINE_ITEM_FIELDS} }`;

// Each document is exported: test/platform-client.test.ts validates every one against the schema.

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
  const data = await client.request<unknown>(GET_ORDER, { id, lineItems: LINES_WITH_ORDER }, options);
  const order = parseAnswer(getAnswer, data, "order").order;
  return order ? complete(client, order, options) : null;
}

export interface ListOrdersOptions extends RequestOptions {
  /** Only orders updated strictly after this instant (the platform's `updated_at:>` filter). */
  updatedSince?: Date | string;
  /** Line items fetched with each order; an order with more gets the rest in its own queries. */
  lineItemsPerOrder?: number;
  /** Orders per page; by default as many as the platform's cost cap allows (16 with 10 line items each). */
  pageSize?: number;
}

/** What one line item costs: itself 1, its variant 1, its selling plan 1, its price's MoneyBag 1 and shop money 1. */
const LINE_ITEM_COST = 5;

/**
 * What one order costs in LIST_ORDERS: the order 1, its customer 1 with its e-mail address 1 and
 * phone number 1, each of its two MoneyBags 2, the line item connection 2, and per line item
 * LINE_ITEM_COST. The orders connection itself adds 2 per page.
 */
function orderCost(lineItemsPerOrder: number): number {
  return 10 + LINE_ITEM_COST * lineItemsPerOrder;
}

/** Line items read with one order (GET_ORDER) and per page of ORDER_LINE_ITEMS: as many as the cost cap allows. */
const LINES_WITH_ORDER = largestBatch(LINE_ITEM_COST, orderCost(0));
const LINES_PER_PAGE = largestBatch(LINE_ITEM_COST, 1 + 2);

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
      LINES_PER_PAGE,
      options,
    ),
  );
  return { ...rest, lineItems: all };
}

export const ORDER_PAYMENT_COLLECTION_URL = `query OrderPaymentCollectionUrl($id: ID!) {
  order(id: $id) { id totalOutstandingSet { shopMoney { amount } } paymentCollectionDetails { additionalPaymentCollectionUrl } }
}`;

const paymentCollectionAnswer = z.object({
  order: z.object({ id: z.string(), totalOutstandingSet: shopMoneySchema, paymentCollectionDetails: z.object({ additionalPaymentCollectionUrl: z.string().nullable() }) }).nullable(),
});

/**
 * The platform's link where the customer pays what the order still owes (the order's
 * `paymentCollectionDetails.additionalPaymentCollectionUrl`): undefined when the platform has no
 * such order, null when it offers no link (nothing owed).
 */
export async function getPaymentCollectionUrl(client: PlatformRequester, id: string, options?: RequestOptions): Promise<{ url: string | null; outstanding: string } | undefined> {
  const data = await client.request<unknown>(ORDER_PAYMENT_COLLECTION_URL, { id }, options);
  const order = parseAnswer(paymentCollectionAnswer, data, "order").order;
  return order ? { url: order.paymentCollectionDetails.additionalPaymentCollectionUrl, outstanding: order.totalOutstandingSet } : undefined;
}
