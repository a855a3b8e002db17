import type pg from "pg";
import { getCustomer } from "../../platform/operations/customers.ts";
import type { PlatformRuntime } from "../../platform/runtime.ts";
import { type SignupStatus, customerIdSchema, signupEmail, signupPhone, variantIdSchema } from "./model.ts";

/**
 * A signed-in customer's own storefront signup (decision 0214). The storefront's signup endpoint
 * answers a repeat as it answers a new signup, so that no one learns whether an address is on a
 * product's list (decision 0200); the one exception is the customer the platform's app proxy signs
 * in (`logged_in_customer_id`) signing up with their own account's contact: they may learn that
 * they are already on the list.
 */

/** Still waiting for its alert: not yet notified, not failed, not converted, not unsubscribed. */
export const LIVE_SIGNUP_STATUSES: readonly SignupStatus[] = ["waiting", "pending"];

export interface OwnSignupDeps {
  pool: pg.Pool;
  platform: () => Promise<Pick<PlatformRuntime, "clientFor">>;
  log: { warn(details: object, message: string): void };
}

export interface OwnSignup {
  /** The signup body, the account's contact filled in when the body had none for its channel. */
  body: Record<string, unknown>;
  /** The contact is the signed-in customer's own (the account's e-mail for email, phone for sms). */
  own: boolean;
  /** Own, and a live signup for this variant and contact existed before this request. */
  live: boolean;
}

const blank = (value: unknown) => value === undefined || value === null || (typeof value === "string" && value.trim() === "");

/** The stored form of a contact of a channel, or undefined when it is not one. */
function storedContact(channel: "email" | "sms", value: unknown): string | undefined {
  const parsed = (channel === "email" ? signupEmail : signupPhone).safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Whether the signup body of the signed-in customer `customerId` (the platform's legacy id, as the
 * app proxy signs it) is for their own contact, read from the platform now: the account's e-mail
 * (channel email) or phone (channel sms). A body without a contact for its channel gets the
 * account's. When the platform cannot tell (the shop is not connected, the call fails, no such
 * customer), the body is not the customer's own and is left as it is.
 */
/** How long the platform's answer about the signed-in customer is waited for before the signup is answered as anyone's. */
const OWN_SIGNUP_LOOKUP_MS = 3000;

export async function ownSignup(deps: OwnSignupDeps, shopId: string, customerId: string, body: Record<string, unknown>): Promise<OwnSignup> {
  const notOwn: OwnSignup = { body, own: false, live: false };
  const channel = body.channel;
  if (channel !== "email" && channel !== "sms") return notOwn;
  const field = channel === "email" ? "email" : "phone";
  let account: string | undefined;
  try {
    const client = await (await deps.platform()).clientFor(deps.pool, shopId);
    // Bounded: a throttled client would wait for budget while the shopper's request (and the app proxy) waits.
    const customer = await getCustomer(client, customerIdSchema.parse(customerId), { signal: AbortSignal.timeout(OWN_SIGNUP_LOOKUP_MS) });
    account = storedContact(channel, channel === "email" ? customer?.email : customer?.phone);
  } catch (error) {
    deps.log.warn({ shopId, err: error }, "the signed-in customer could not be read from the store platform: the signup is answered as anyone's");
    return notOwn;
  }
  if (account === undefined) return notOwn;
  const filled = blank(body[field]) ? { ...body, [field]: account } : body;
  if (storedContact(channel, filled[field]) !== account) return notOwn;

  const variant = variantIdSchema.safeParse(body.variant_id);
  if (!variant.success) return { body: filled, own: true, live: false };
  const { rows } = await deps.pool.query<{ status: SignupStatus }>(
    "select status from bis_signups where shop_id = $1 and variant_id = $2 and channel = $3 and contact = $4",
    [shopId, variant.data, channel, account],
  );
  const status = rows[0]?.status;
  return { body: filled, own: true, live: status !== undefined && LIVE_SIGNUP_STATUSES.includes(status) };
}
