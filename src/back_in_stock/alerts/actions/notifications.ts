import { z } from "zod";
import { BLOCKED_REASONS } from "../../../messaging/blocked.ts";
import { defineAction } from "../../../core/action.ts";
import type { Db } from "../../../core/db.ts";
import { notFound } from "../../../core/errors.ts";
import { pageOutput, timestampOutput } from "../../../core/outputs.ts";
import { uuid } from "../../../core/schemas.ts";
import { isUuid } from "../../../core/params.ts";
import { STAGES } from "../../templates/default-templates.ts";
import { SIGNUP_CHANNELS, variantIdSchema } from "../../signups/model.ts";
import { Filters } from "../../../core/sql-filters.ts";
import { PAGING_RULE, pageAnswer, pageOrCursor, paging, pagingParams, cursorPart } from "../../../core/paging.ts";
import { PERIOD_RULE, periodEnd, periodStart } from "../../../core/period.ts";

const NOTIFICATION_STATUSES = ["pending", "sent", "failed", "blocked"] as const;
const NOTIFICATION_RESOURCE = "Back-in-stock notification";

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
  attempts: number | null;
  created_at: Date;
  cursor_at: string;
}

interface NotificationDetailRow extends NotificationRow {
  subject: string | null;
  sent_at: Date | null;
}

// The log (sql/139, decision 0249): one entry per message, its ledger row with its current status
// (final, or pending while it waits, is retried or is sent again) and its attempts, and the entries
// that claim no row (refusals, a deleted signup's messages, whose message id reads null, as the
// signup does).
const SELECT = `n.id, n.signup_id, n.ledger_id, n.variant_id, n.stage, n.channel, s.contact, n.status, n.blocked_reason,
  n.error, n.provider_message_id, n.delivery_status, n.attempts, n.created_at,
  to_char(n.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at`;

const notificationFields = {
  id: z.string().describe("the log entry's id: its message's id (a UUID, as message_id, the ops console's failed messages and the CLI's messages failed show it) or, for a refusal that claimed no message, digits"),
  signup_id: z.string().nullable().describe("null once the signup is deleted"),
  message_id: z.string().nullable().describe("the ledger row the message id derives from; null for a refusal that claimed nothing"),
  variant_id: z.string(),
  stage: z.enum(STAGES),
  channel: z.enum(SIGNUP_CHANNELS),
  recipient: z.string().nullable().describe("the signup's e-mail address or phone number; null once the signup is deleted"),
  status: z.enum(NOTIFICATION_STATUSES).describe("the message's current status: pending (not sent yet, retried after a failure that may pass, or sent again after it failed), sent, failed or blocked"),
  blocked_reason: z.enum(BLOCKED_REASONS).nullable().describe("for blocked: why (one vocabulary for every area)"),
  error: z.string().nullable().describe("for failed: what the channel answered; for pending after an attempt: the last attempt's error"),
  provider_message_id: z.string().nullable(),
  delivery_status: z.string().nullable().describe("text messages: the provider's delivery report"),
  attempts: z.int().min(0).nullable().describe("send attempts of the message, every retry and resend included; null for an entry without a message in the ledger"),
  created_at: timestampOutput.describe("when its latest outcome was recorded; for a message with none yet, when it was claimed"),
};

const notificationOutput = z.strictObject(notificationFields);

const notificationDetailOutput = z.strictObject({
  ...notificationFields,
  subject: z.string().nullable().describe("the rendered e-mail subject it was sent with; null for text messages, refusals, and entries logged before subjects were kept"),
  sent_at: timestampOutput.nullable().describe("when the message was handed to the channel; null unless sent"),
});

function present(n: NotificationRow) {
  return {
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
    attempts: n.attempts,
    created_at: n.created_at.toISOString(),
  };
}

export const listNotifications = defineAction({
  name: "back_in_stock.notifications.list",
  method: "GET",
  path: "/back_in_stock/notifications",
  aliases: ["list back in stock notifications", "show the back in stock message log", "which back in stock alerts were sent"],
  description: `The notifications log, newest first, as { notifications, page, per_page, total, next_cursor }: one entry per message (not per attempt) with its current status, and every refusal, each with id (the message id: the one the ops console and the CLI show), signup_id (null once the signup is deleted), message_id (the ledger row the message id derives from), variant_id, stage (${STAGES.join(", ")}), channel, recipient (the signup's address or number), status (pending, sent, failed, blocked), blocked_reason (for blocked: unsubscribed, channel off, template disabled, stock gone, ...), error (for failed; for pending, the last attempt's), provider_message_id, delivery_status (text messages: the provider's delivery report), attempts and created_at. Filters (optional, combined with and): signup_id, variant_id (numeric id or gid), status, channel, stage, from and to (${PERIOD_RULE}). ${PAGING_RULE}.`,
  notes: [
    "Each message is one entry under its message id, with its current status and its attempts: retries and resends count attempts, never entries. A message waiting to be sent, retried after a failure that may pass, or sent again after it failed reads pending (with the last attempt's error), then its new outcome. The id finds the message in the ops console's failed messages and in `npm run cli -- messages failed`, and back.",
    "A refusal that claims no message is logged each time it happens, so one signup can have several blocked entries for a stage.",
    "GET /back_in_stock/notifications/{id} adds the rendered subject and sent_at of one entry.",
  ],
  kind: "read",
  input: z.strictObject({
    signup_id: uuid("signup").optional(),
    variant_id: variantIdSchema.optional(),
    status: z.enum(NOTIFICATION_STATUSES).optional(),
    channel: z.enum(SIGNUP_CHANNELS).optional(),
    stage: z.enum(STAGES).optional(),
    from: periodStart.optional(),
    to: periodEnd.optional(),
    ...pagingParams(z.tuple([cursorPart.timestamp, z.union([cursorPart.uuid, cursorPart.bigint])])),
  }).superRefine(pageOrCursor),
  output: pageOutput("notifications", notificationOutput),
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
    const { rows: counted } = await ctx.db.query<{ n: number }>(`select count(*)::int as n from bis_notification_log n where ${where.sql()}`, where.params);
    if (p.after) where.add(`(n.created_at, n.id) < (${where.param(p.after[0])}::timestamptz, ${where.param(p.after[1])}::text)`);
    const { rows } = await ctx.db.query<NotificationRow>(
      `select ${SELECT}
       from bis_notification_log n left join bis_signups s on s.id = n.signup_id
       where ${where.sql()}
       order by n.created_at desc, n.id desc
       limit ${where.param(p.limit)} offset ${where.param(p.offset)}`,
      where.params,
    );
    return pageAnswer("notifications", p, rows, counted[0]?.n ?? 0, (n) => [n.cursor_at, n.id], present);
  },
});

/** One entry of the shop's log, by its message id or its number; 404 `Back-in-stock notification not found: <id>` otherwise (a malformed id included). */
async function loadNotification(db: Db, shopId: string, id: string): Promise<NotificationDetailRow> {
  // Each branch of the view by its own key: the message id (the ledger's primary key, or a kept
  // entry's message), or the entry's number.
  const message = isUuid(id);
  const key = message ? "n.message_key = $2::uuid" : /^[1-9]\d{0,17}$/.test(id) ? "n.entry_id = $2::bigint" : undefined;
  const { rows } = key
    ? await db.query<NotificationDetailRow>(
        `select ${SELECT}, n.subject, n.sent_at
         from bis_notification_log n
         left join bis_signups s on s.id = n.signup_id
         where n.shop_id = $1 and ${key}`,
        [shopId, message ? id.toLowerCase() : id],
      )
    : { rows: [] };
  const row = rows[0];
  if (!row) throw notFound(NOTIFICATION_RESOURCE, id);
  return row;
}

export const getNotification = defineAction({
  name: "back_in_stock.notifications.get",
  method: "GET",
  path: "/back_in_stock/notifications/{id}",
  aliases: ["show one back in stock notification", "read a back in stock message log entry", "why was a back in stock alert blocked"],
  description:
    "One entry of the notifications log (id from GET /back_in_stock/notifications, or a message id from the ops console or the CLI): the list's fields (signup_id, message_id, variant_id, stage, channel, recipient, status, blocked_reason, error, provider_message_id, delivery_status, attempts, created_at) plus subject (the rendered e-mail subject it was sent with) and sent_at. 404 for an id of another shop.",
  notes: ["The message body is not kept; the subject is, for e-mails sent or failed after it was introduced.", "recipient reads null once the signup is deleted: the log entry stays without it."],
  kind: "read",
  params: z.object({ id: z.string() }),
  input: z.strictObject({}),
  output: notificationDetailOutput,
  async handler(ctx, { params }) {
    const row = await loadNotification(ctx.db, ctx.shopId, params.id);
    return { ...present(row), subject: row.subject, sent_at: row.sent_at?.toISOString() ?? null };
  },
});
