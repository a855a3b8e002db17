import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import { SIGNUP_CHANNELS, SIGNUP_STATUSES, type SignupRow, loadSignup, presentSignup, productIdSchema, variantIdSchema } from "../../../back_in_stock/signups/model.ts";
import { Filters, cursorSchema, encodeCursor, perPage } from "../../../back_in_stock/signups/query.ts";
import { PERIOD_RULE, periodEnd, periodStart } from "../../../core/period.ts";

const MAX_PER_PAGE = 250;

export const listSignups = defineAction({
  name: "back_in_stock.signups.list",
  method: "GET",
  path: "/back_in_stock/signups",
  description: `Signups, newest first, as { signups, next_cursor }. Filters (all optional, combined with and): variant_id and product_id (numeric id or gid), status (${SIGNUP_STATUSES.join(", ")}), channel (email, sms), contact (an e-mail address or E.164 number), created_from and created_to (${PERIOD_RULE}). Paging by cursor: per_page (1-${MAX_PER_PAGE}, default 50); pass next_cursor as cursor for the next page; next_cursor is null on the last page. A cursor stays valid while signups are added.`,
  kind: "read",
  input: z.strictObject({
    variant_id: variantIdSchema.optional(),
    product_id: productIdSchema.optional(),
    status: z.enum(SIGNUP_STATUSES).optional(),
    channel: z.enum(SIGNUP_CHANNELS).optional(),
    contact: z.string().trim().min(1).max(254).optional(),
    created_from: periodStart.optional(),
    created_to: periodEnd.optional(),
    per_page: perPage(MAX_PER_PAGE, 50),
    cursor: cursorSchema(z.tuple([z.iso.datetime(), z.uuid()])).optional(),
  }),
  async handler(ctx, { input }) {
    const where = new Filters([ctx.shopId])
      .add("shop_id = $1")
      .when(input.variant_id, (p) => `variant_id = ${p}`)
      .when(input.product_id, (p) => `product_id = ${p}`)
      .when(input.status, (p) => `status = ${p}`)
      .when(input.channel, (p) => `channel = ${p}`)
      .when(input.contact?.toLowerCase().replace(/^(\+?[\d\s().-]+)$/, (v) => v.replace(/[\s().-]/g, "")), (p) => `contact = ${p}`)
      .when(input.created_from, (p) => `created_at >= ${p}`)
      .when(input.created_to, (p) => `created_at < ${p}`);
    if (input.cursor) where.add(`(created_at, id) < (${where.param(input.cursor[0])}::timestamptz, ${where.param(input.cursor[1])}::uuid)`);
    const limit = where.param(input.per_page + 1);
    const { rows } = await ctx.db.query<SignupRow & { cursor_at: string }>(
      `select *, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at
       from bis_signups where ${where.sql()}
       order by created_at desc, id desc
       limit ${limit}`,
      where.params,
    );
    const page = rows.slice(0, input.per_page);
    const last = page.at(-1);
    return {
      signups: page.map(presentSignup),
      next_cursor: rows.length > input.per_page && last ? encodeCursor([last.cursor_at, last.id]) : null,
    };
  },
});

export const getSignup = defineAction({
  name: "back_in_stock.signups.get",
  method: "GET",
  path: "/back_in_stock/signups/{id}",
  description:
    "One signup: id, variant_id, product_id, channel, email or phone, locale, consent, customer_id, first_name, status (waiting, notified, converted, unsubscribed), created_at, notified_at, converted_at, converted_order_id, unsubscribed_at, updated_at. 404 `Back-in-stock signup not found: <id>` for an unknown id or another shop's.",
  kind: "read",
  params: z.object({ id: z.string() }),
  input: z.strictObject({}),
  async handler(ctx, { params }) {
    return presentSignup(await loadSignup(ctx.db, ctx.shopId, params.id));
  },
});
