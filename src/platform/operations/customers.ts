import { z } from "zod";
import type { PlatformRequester, RequestOptions } from "../client.ts";
import { parseAnswer } from "./parse.ts";
import { addTags, removeTags } from "./tags.ts";

/** The customer's fields every document selects: the default e-mail address and phone number (Customer.email/phone are deprecated). */
export const CUSTOMER_FIELDS = `id defaultEmailAddress { emailAddress } defaultPhoneNumber { phoneNumber } firstName tags`;

/** A customer as this service uses it: the default contact details flattened to email and phone. */
export const customerSchema = z
  .object({
    id: z.string(),
    defaultEmailAddress: z.object({ emailAddress: z.string() }).nullable(),
    defaultPhoneNumber: z.object({ phoneNumber: z.string() }).nullable(),
    firstName: z.string().nullable(),
    tags: z.array(z.string()),
  })
  .transform(({ defaultEmailAddress, defaultPhoneNumber, ...rest }) => ({
    ...rest,
    email: defaultEmailAddress?.emailAddress ?? null,
    phone: defaultPhoneNumber?.phoneNumber ?? null,
  }));
export type Customer = z.infer<typeof customerSchema>;

// Each document is exported: test/platform-client.test.ts validates every one against the schema.
export const GET_CUSTOMER = `query GetCustomer($id: ID!) {
  customer(id: $id) { ${CUSTOMER_FIELDS} }
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
