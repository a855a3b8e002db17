import { z } from "zod";
import type { PlatformRequester, RequestOptions } from "../client.ts";
import { parseAnswer } from "./parse.ts";
import { addTags, removeTags } from "./tags.ts";

export const customerSchema = z.object({
  id: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  firstName: z.string().nullable(),
  tags: z.array(z.string()),
});
export type Customer = z.infer<typeof customerSchema>;

export const GET_CUSTOMER = `query GetCustomer($id: ID!) {
  customer(id: $id) { id email phone firstName tags }
}`;

/** The customer, or null when the platform has no customer with that id. */
export async function getCustomer(client: PlatformRequester, customerId: string, options?: RequestOptions): Promise<Customer | null> {
  const data = await client.request<unknown>(GET_CUSTOMER, { id: customerId }, options);
  return parseAnswer(z.object({ customer: customerSchema.nullable() }), data, "customer").customer;
}

/** Tags a customer (e.g. back-in-stock subscribers) without touching the tags already there. */
export async function addCustomerTags(
  client: PlatformRequester,
  customerId: string,
  tags: readonly string[],
  options?: RequestOptions,
): Promise<void> {
  await addTags(client, customerId, tags, options);
}

/** Removes only these tags from a customer. */
export async function removeCustomerTags(
  client: PlatformRequester,
  customerId: string,
  tags: readonly string[],
  options?: RequestOptions,
): Promise<void> {
  await removeTags(client, customerId, tags, options);
}
