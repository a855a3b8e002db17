import { z } from "zod";
import { defineAction } from "../../core/action.ts";
import { uuid } from "../../core/schemas.ts";
import { STAGES } from "../../back_in_stock/templates/default-templates.ts";
import { SIGNUP_CHANNELS, variantIdSchema } from "../../back_in_stock/signups/model.ts";
import { Filters } from "../../back_in_stock/signups/query.ts";
import { PAGING_RULE, pageAnswer, pageOrCursor, paging, pagingParams, cursorPart } from "../../core/paging.ts";
import { PERIOD_RULE, periodEnd, periodStart } from "../../core/period.ts";

export const NOTIFICATION_STATUSES = ["sent", "failed", "blocked"] as const;

interface NotificationRow {
  id: string;
  signup_id: string | null;
  ledger_id: string | null;
  variant_id: string;
  stage: string;
  channel: string;
  contact: string | null;
  status: string;
  blocked_reason: string | null;
  error: string | null;
  provider_message_id: string | null;
  delivery_status: string | null;
  created_at: Date;
  cursor_at: string;
}

export const listNotifications = defineAction({
  name: "back_in_stock.notifications.list",
  method: "GET",
  path: "/back_in_stock/notifications",
  description: `The notifications log, newest first, as { notifications, page, per_page, total, next_cursor }: every message sent or refused, each with id, signup_id (null once the signup is deleted), message_id (the ledger row the message id derives from), variant_id, stage (${STAGES.join(", ")}), channel, recipient (the signup's address or number), status (sent, failed, blocked), blocked_reason (for blocked: unsubscribed, channel off, template disabled, stock gone, ...), error (for failed), provider_message_id, delivery_status (text messages: the provider's delivery report) and created_at. Filters (optional, combined with and): signup_id, variant_id (numeric id or gid), status, channel, stage, from and to (${PERIOD_RULE}). ${PAGING_RULE}.`,
  kind: "read",
  input: z.strictObject({
    signup_id: uuid("signup").optional(),
    variant_id: variantIdSchema.optional(),
    status: z.enum(NOTIFICATION_STATUSES).optional(),
    channel: z.enum(SIGNUP_CHANNELS).optional(),
    stage: z.enum(STAGES).optional(),
    from: periodStart.optional(),
    to: periodEnd.optional(),
    ...pagingParams(z.tuple([cursorPart.timestamp, cursorPart.bigint])),
  }).superRefine(pageOrCursor),
  async handler(ctx, { input }) {
    const where = new Filters([ctx.shopId])
      .add("n.shop_id = $1")
      .when(input.signup_id, (p) => `n.signup_id = ${p}`)
      .when(input.variant_id, (p) => `n.variant_id = ${p}`)
      .when(input.status, (p) => `n.status = ${p}`)
      .when(input.channel, (p) => `n.channel = ${p}`)
      .when(input.stage, (p) => `n.stage = ${p}`)
      .when(input.from, (p) => `n.created_at >= ${p}`)
      .when(input.to, (p) => `n.created_at < ${p}`);
    const p = paging(input);
    const { rows: counted } = await ctx.db.query<{ n: number }>(`select count(*)::int as n from bis_notifications n where ${where.sql()}`, where.params);
    if (p.after) where.add(`(n.created_at, n.id) < (${where.param(p.after[0])}::timestamptz, ${where.param(p.after[1])}::bigint)`);
    const { rows } = await ctx.db.query<NotificationRow>(
      `select n.id::text as id, n.signup_id, n.ledger_id, n.variant_id, n.stage, n.channel, s.contact, n.status, n.blocked_reason,
              n.error, n.provider_message_id, n.delivery_status, n.created_at,
              to_char(n.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at
       from bis_notifications n left join bis_signups s on s.id = n.signup_id
       where ${where.sql()}
       order by n.created_at desc, n.id desc
       limit ${where.param(p.limit)} offset ${where.param(p.offset)}`,
      where.params,
    );
    return pageAnswer("notifications", p, rows, counted[0]?.n ?? 0, (n) => [n.cursor_at, n.id], (n) => ({
      id: n.id,
      signup_id: n.signup_id,
      message_id: n.ledger_id,
      variant_id: n.variant_id,
      stage: n.stage,
      channel: n.channel,
      recipient: n.contact,
      status: n.status,
      blocked_reason: n.blocked_reason,
      error: n.error,
      provider_message_id: n.provider_message_id,
      delivery_status: n.delivery_status,
      created_at: n.created_at.toISOString(),
    }));
  },
});
