import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import { SIGNUP_CHANNELS, SIGNUP_STATUSES, type SignupRow, loadSignup, marketIdSchema, presentSignup, productIdSchema, variantIdSchema } from "../model.ts";
import { Filters } from "../../../core/sql-filters.ts";
import { PAGING_RULE, pageAnswer, pageOrCursor, paging, pagingParams, cursorPart } from "../../../core/paging.ts";
import { PERIOD_RULE, periodEnd, periodStart } from "../../../core/period.ts";
import { pageOutput } from "../../../core/outputs.ts";
import { presentSignupsWithSync, signupWithSyncOutput } from "./output.ts";

export const listSignups = defineAction({
  name: "back_in_stock.signups.list",
  method: "GET",
  path: "/back_in_stock/signups",
  description: `Signups, newest first, as { signups, page, per_page, total, next_cursor }. Filters (all optional, combined with and): variant_id and product_id (numeric id or gid), status (${SIGNUP_STATUSES.join(", ")}), channel (email, sms), contact (an e-mail address or E.164 number), market_id (numeric id or gid: the signups made in that market), created_from and created_to (${PERIOD_RULE}). ${PAGING_RULE}.`,
  aliases: ["list back in stock signups", "find signups for a variant", "search waiting customers by contact"],
  notes: [
    "Each signup carries sync: its state per target it was sent to (e-mail providers with sync on, the platform customer's tag), pending while retrying, synced, failed or skipped.",
  ],
  kind: "read",
  output: pageOutput("signups", signupWithSyncOutput),
  input: z.strictObject({
    variant_id: variantIdSchema.optional(),
    product_id: productIdSchema.optional(),
    status: z.enum(SIGNUP_STATUSES).optional(),
    channel: z.enum(SIGNUP_CHANNELS).optional(),
    contact: z.string().trim().min(1).max(254).optional(),
    market_id: marketIdSchema.optional(),
    created_from: periodStart.optional(),
    created_to: periodEnd.optional(),
    ...pagingParams(z.tuple([cursorPart.timestamp, cursorPart.uuid])),
  }).superRefine(pageOrCursor),
  async handler(ctx, { input }) {
    const where = new Filters([ctx.shopId])
      .add("shop_id = $1")
      .when(input.variant_id, (p) => `variant_id = ${p}`)
      .when(input.product_id, (p) => `product_id = ${p}`)
      .when(input.status, (p) => `status = ${p}`)
      .when(input.channel, (p) => `channel = ${p}`)
      .when(input.contact?.toLowerCase().replace(/^(\+?[\d\s().-]+)$/, (v) => v.replace(/[\s().-]/g, "")), (p) => `contact = ${p}`)
      .when(input.market_id, (p) => `market_id = ${p}`)
      .when(input.created_from, (p) => `created_at >= ${p}`)
      .when(input.created_to, (p) => `created_at < ${p}`);
    const p = paging(input);
    const { rows: counted } = await ctx.db.query<{ n: number }>(`select count(*)::int as n from bis_signups where ${where.sql()}`, where.params);
    if (p.after) where.add(`(created_at, id) < (${where.param(p.after[0])}::timestamptz, ${where.param(p.after[1])}::uuid)`);
    const { rows } = await ctx.db.query<SignupRow & { cursor_at: string }>(
      `select *, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at
       from bis_signups where ${where.sql()}
       order by created_at desc, id desc
       limit ${where.param(p.limit)} offset ${where.param(p.offset)}`,
      where.params,
    );
    const presented = new Map((await presentSignupsWithSync(ctx.db, rows)).map((s) => [s.id, s]));
    return pageAnswer("signups", p, rows, counted[0]?.n ?? 0, (row) => [row.cursor_at, row.id], (row) => presented.get(row.id) ?? presentSignup(row));
  },
});

export const getSignup = defineAction({
  name: "back_in_stock.signups.get",
  method: "GET",
  path: "/back_in_stock/signups/{id}",
  description:
    "One signup: id, variant_id, product_id, channel, email or phone, locale, consent, customer_id, first_name, quantity (units wanted), market_id (the market signed up in, or null), status (waiting, notified, converted, unsubscribed), created_at, notified_at, converted_at, converted_order_id, unsubscribed_at, updated_at, and sync (per target: status pending, synced, failed or skipped; attempts; last_error; synced_at). 404 `Back-in-stock signup not found: <id>` for an unknown id or another shop's.",
  aliases: ["show one back in stock signup", "check whether a signup reached the email provider"],
  kind: "read",
  output: signupWithSyncOutput,
  params: z.object({ id: z.string() }),
  input: z.strictObject({}),
  async handler(ctx, { params }) {
    const [signup] = await presentSignupsWithSync(ctx.db, [await loadSignup(ctx.db, ctx.shopId, params.id)]);
    return signup;
  },
});
