import { z } from "zod";

/**
 * The payloads of the app's lifecycle topics, with Shopify's field names (the compliance topics:
 * shopify.dev, "Privacy law compliance"). Ids are the REST ids, numbers; strings are taken too.
 */

const legacyId = z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(String);

/** The customer of a customers/* topic: Shopify sends null for a missing e-mail or phone. */
const complianceCustomer = z.object({
  id: legacyId,
  email: z.string().nullish().transform((v) => v ?? null),
  phone: z.string().nullish().transform((v) => v ?? null),
});

export const customersDataRequestPayload = z.object({
  shop_id: legacyId,
  shop_domain: z.string(),
  orders_requested: z.array(legacyId).default([]),
  customer: complianceCustomer,
  data_request: z.object({ id: legacyId }),
});

export const customersRedactPayload = z.object({
  shop_id: legacyId,
  shop_domain: z.string(),
  customer: complianceCustomer,
  orders_to_redact: z.array(legacyId).default([]),
});

export const shopRedactPayload = z.object({ shop_id: legacyId, shop_domain: z.string() });

export type ComplianceCustomer = z.output<typeof complianceCustomer>;

/** The customer's gid and their orders' gids, as the service stores them. */
export function customerGid(customer: ComplianceCustomer): string {
  return `gid://shopify/Customer/${customer.id}`;
}

export function orderGids(ids: readonly string[]): string[] {
  return ids.map((id) => `gid://shopify/Order/${id}`);
}
