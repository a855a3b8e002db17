import { z } from "zod";

/** Request building blocks of the orders and reports actions; messages follow the field name. */

export const ISO_4217 = z
  .string({ error: "must be an ISO 4217 currency code" })
  .regex(/^[A-Z]{3}$/, "must be an ISO 4217 currency code")
  .meta({ examples: ["USD", "EUR"] });

/** Offers are identified by their UUID. */
export const offerId = z.uuid({ error: "must be an offer id (a UUID)" });
