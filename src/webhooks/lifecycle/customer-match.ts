import { type ComplianceCustomer, customerGid } from "./payloads.ts";

/**
 * Which rows are a compliance customer's: those of their customer id, and those of their e-mail
 * (case aside) or phone (digits only; a number without its country code matches the one with it,
 * from 8 digits on) when the request has them, since a storefront signup or an order may carry no
 * customer id. Parameters: $1 the shop, $2 the customer's gid, $3 the e-mail lowered, $4 the
 * phone's digits (customerMatchValues).
 */
const samePhone = (column: string) => {
  const digits = `regexp_replace(coalesce(${column}, ''), '\\D', '', 'g')`;
  return `($4::text is not null and (${digits} = $4 or (length(${digits}) >= 8 and (${digits} like '%' || $4 or $4 like '%' || ${digits}))))`;
};

export const CUSTOMER_MATCH = {
  signup: (s: string) =>
    `${s}.shop_id = $1 and (${s}.customer_id = $2 or (${s}.channel = 'email' and $3::text is not null and lower(${s}.contact) = $3) or (${s}.channel = 'sms' and ${samePhone(`${s}.contact`)}))`,
  order: (o: string) => `(${o}.customer_id = $2 or ($3::text is not null and lower(${o}.email) = $3) or ${samePhone(`${o}.phone`)})`,
};

export function customerMatchValues(shopId: string, customer: ComplianceCustomer): [string, string, string | null, string | null] {
  const email = customer.email?.trim().toLowerCase() || null;
  const digits = customer.phone?.replace(/\D/g, "") ?? "";
  return [shopId, customerGid(customer), email, digits.length >= 8 ? digits : null];
}
