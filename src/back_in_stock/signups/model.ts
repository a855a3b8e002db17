import { z } from "zod";
import type { Db } from "../../core/db.ts";
import { type Issue, notFound } from "../../core/errors.ts";
import { isUuid, platformId, positiveJsonInt } from "../../core/params.ts";

/** What every signup action shares: the row, its public shape, id forms and lookups. */

/**
 * waiting: in the queue; pending: its alert claimed and not accepted by the server yet (being sent
 * or retried, `last_error` says why); notified: its alert was accepted; failed: its alert failed for
 * good or was refused at send (`last_error`), and may be sent again (notify, bulk_notify).
 */
export const SIGNUP_STATUSES = ["waiting", "pending", "notified", "failed", "converted", "unsubscribed"] as const;
export type SignupStatus = (typeof SIGNUP_STATUSES)[number];
export const SIGNUP_CHANNELS = ["email", "sms"] as const;
export type SignupChannel = (typeof SIGNUP_CHANNELS)[number];

export const SIGNUP_RESOURCE = "Back-in-stock signup";

export interface SignupRow {
  id: string;
  shop_id: string;
  variant_id: string;
  product_id: string | null;
  channel: SignupChannel;
  contact: string;
  locale: string;
  consent: boolean;
  customer_id: string | null;
  first_name: string | null;
  status: SignupStatus;
  created_at: Date;
  notified_at: Date | null;
  converted_at: Date | null;
  converted_order_id: string | null;
  unsubscribed_at: Date | null;
  last_error: string | null;
  updated_at: Date;
  /** Units the customer wants (1-SIGNUP_QUANTITY_MAX). */
  quantity: number;
  /** The market (gid) the customer signed up in, or null. */
  market_id: string | null;
}

const iso = (d: Date | null): string | null => d?.toISOString() ?? null;

/** The public shape of a signup (every signup action answers it). */
export function presentSignup(row: SignupRow): Record<string, unknown> {
  return {
    id: row.id,
    variant_id: row.variant_id,
    product_id: row.product_id,
    channel: row.channel,
    email: row.channel === "email" ? row.contact : null,
    phone: row.channel === "sms" ? row.contact : null,
    locale: row.locale,
    consent: row.consent,
    customer_id: row.customer_id,
    first_name: row.first_name,
    quantity: row.quantity,
    market_id: row.market_id,
    status: row.status,
    created_at: row.created_at.toISOString(),
    notified_at: iso(row.notified_at),
    converted_at: iso(row.converted_at),
    converted_order_id: row.converted_order_id,
    unsubscribed_at: iso(row.unsubscribed_at),
    last_error: row.last_error,
    updated_at: row.updated_at.toISOString(),
  };
}

const E164 = /^\+[1-9]\d{1,14}$/;

/** A signup's e-mail address as it is stored (the contact of channel email): trimmed, lower-cased. */
export const signupEmail = z.string().trim().toLowerCase().max(254).pipe(z.email());
/** A signup's phone number as it is stored (the contact of channel sms). Separators people type are dropped before the E.164 check: "+1 (555) 010-9999" is +15550109999. */
export const signupPhone = z
  .string()
  .transform((v) => v.replace(/[\s().-]/g, ""))
  .pipe(z.string().regex(E164, "must be an E.164 phone number such as +15550109999"));

export const variantIdSchema = platformId("ProductVariant");
export const productIdSchema = platformId("Product");
export const customerIdSchema = platformId("Customer");
export const marketIdSchema = platformId("Market");

/** The most units one signup may ask for (decision 0246). */
export const SIGNUP_QUANTITY_MAX = 10_000;
/** Units a signup wants: a JSON integer from 1 to SIGNUP_QUANTITY_MAX (sql/137 checks the same). */
export const signupQuantity = positiveJsonInt(SIGNUP_QUANTITY_MAX);

export const MARKET_NOT_IN_SHOP_ISSUE: Issue = { path: "market_id", message: "must be a market of this shop" };

/** Whether the market (gid) is one of this shop's mirrored markets. */
export async function marketExists(db: Db, shopId: string, marketId: string): Promise<boolean> {
  const { rows } = await db.query("select 1 from markets where shop_id = $1 and id = $2", [shopId, marketId]);
  return rows.length > 0;
}

export const VARIANT_NOT_IN_SHOP_ISSUE: Issue = { path: "variant_id", message: "must be a variant of this shop" };

/** The mirrored variant (gid) of this shop, or undefined. */
export async function findVariant(db: Db, shopId: string, variantId: string): Promise<{ id: string; product_id: string } | undefined> {
  const { rows } = await db.query<{ id: string; product_id: string }>("select id, product_id from variants where shop_id = $1 and id = $2", [shopId, variantId]);
  return rows[0];
}

/** The signup of this shop; 404 `Back-in-stock signup not found: <id>` otherwise (a malformed id included). */
export async function loadSignup(db: Db, shopId: string, id: string, lock = false): Promise<SignupRow> {
  const { rows } = isUuid(id)
    ? await db.query<SignupRow>(`select * from bis_signups where id = $1 and shop_id = $2 ${lock ? "for update" : ""}`, [id, shopId])
    : { rows: [] };
  const row = rows[0];
  if (!row) throw notFound(SIGNUP_RESOURCE, id);
  return row;
}
