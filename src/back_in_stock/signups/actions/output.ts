import { z } from "zod";
import { timestampOutput } from "../../../core/outputs.ts";
import { SIGNUP_CHANNELS, SIGNUP_STATUSES, type SignupRow, presentSignup } from "../model.ts";
import type { Db } from "../../../core/db.ts";
import { loadSignupSyncs, signupSyncOutput } from "../../../providers/sync/model.ts";

/** What `presentSignup` (src/back_in_stock/signups/model.ts) answers: the output schema of every signup action. */
const signupOutput = z.strictObject({
  id: z.string().describe("the signup's id (uuid)"),
  variant_id: z.string().describe("gid of the variant waited for"),
  product_id: z.string().nullable(),
  channel: z.enum(SIGNUP_CHANNELS),
  email: z.string().nullable().describe("for channel email"),
  phone: z.string().nullable().describe("for channel sms, E.164"),
  locale: z.string(),
  consent: z.boolean(),
  customer_id: z.string().nullable().describe("gid of the platform customer, when known"),
  first_name: z.string().nullable(),
  quantity: z.int().min(1).describe("units the customer wants (default 1); summed as units_wanted in the demand reads"),
  market_id: z.string().nullable().describe("gid of the market the customer signed up in (GET /account/markets); the alert waits for stock at a location of that market; null: any stock"),
  status: z.enum(SIGNUP_STATUSES),
  created_at: timestampOutput,
  notified_at: timestampOutput.nullable().describe("when its initial alert was accepted by the mail server or SMS provider"),
  converted_at: timestampOutput.nullable().describe("when the converting order was placed"),
  converted_order_id: z.string().nullable(),
  unsubscribed_at: timestampOutput.nullable(),
  last_error: z.string().nullable().describe("status pending: why the last attempt failed (it is retried); failed: why it failed for good"),
  updated_at: timestampOutput,
});

/** A signup with its sync to the e-mail providers and the platform customer: what every signup action answers. */
export const signupWithSyncOutput = signupOutput.extend({ sync: signupSyncOutput });

/** Signups in their public shape, each with its `sync` (one query for all of them). */
export async function presentSignupsWithSync(db: Db, rows: readonly SignupRow[]): Promise<Record<string, unknown>[]> {
  const syncs = await loadSignupSyncs(db, rows.map((r) => r.id));
  return rows.map((row) => ({ ...presentSignup(row), sync: syncs.get(row.id) ?? {} }));
}

export async function presentSignupWithSync(db: Db, row: SignupRow): Promise<Record<string, unknown>> {
  const [answer] = await presentSignupsWithSync(db, [row]);
  if (!answer) throw new Error("a presented signup is missing");
  return answer;
}
