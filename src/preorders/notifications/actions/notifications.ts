import { z } from "zod";
import { type AnyAction, defineAction } from "../../../core/action.ts";
import { notFound } from "../../../core/errors.ts";
import { pageOutput, timestampOutput } from "../../../core/outputs.ts";
import { PAGING_RULE, cursorPart, pageAnswer, pageOrCursor, paging, pagingParams } from "../../../core/paging.ts";
import { isUuid } from "../../../core/params.ts";
import { PERIOD_RULE, periodEnd, periodStart } from "../../../core/period.ts";
import { uuid } from "../../../core/schemas.ts";
import { Filters } from "../../../core/sql-filters.ts";
import { BLOCKED_REASONS, notificationMessageId } from "../ledger.ts";
import { NOTIFICATION_CHANNELS, NOTIFICATION_STAGES } from "../templates.ts";

const NOTIFICATION_RESOURCE = "Preorder notification";
const STATUSES = ["pending", "sent", "failed", "blocked"] as const;

interface Row {
  id: string;
  order_id: string;
  order_name: string | null;
  offer_id: string | null;
  stage: string;
  event_key: string;
  channel: string;
  recipient: string | null;
  locale: string;
  status: string;
  blocked_reason: string | null;
  attempts: number;
  last_error: string | null;
  provider_message_id: string | null;
  context: Record<string, unknown>;
  sent_at: Date | null;
  created_at: Date;
  updated_at: Date;
  cursor_at: string;
}

const SELECT = `n.id, n.order_id, o.name as order_name, n.offer_id, n.stage, n.event_key, n.channel, n.recipient, n.locale, n.status,
  n.blocked_reason, n.attempts, n.last_error, n.provider_message_id, n.context, n.sent_at, n.created_at, n.updated_at,
  to_char(n.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at`;

const notificationOutput = z.strictObject({
  id: z.string(),
  message_id: z.string().describe("the message's deterministic id (e-mail Message-ID local part, outbox name, text message reference)"),
  order_id: z.string(),
  order_name: z.string().nullable(),
  offer_id: z.string().nullable(),
  stage: z.enum(NOTIFICATION_STAGES),
  channel: z.enum(NOTIFICATION_CHANNELS),
  recipient: z.string().nullable().describe("the order's e-mail address or phone number; null when it has none"),
  locale: z.string(),
  status: z.enum(STATUSES).describe("pending until its send job decides; then sent, failed or blocked"),
  blocked_reason: z.enum(BLOCKED_REASONS).nullable(),
  error: z.string().nullable().describe("for failed (and pending retries): the last error"),
  attempts: z.int().min(0),
  provider_message_id: z.string().nullable(),
  sent_at: timestampOutput.nullable(),
  created_at: timestampOutput,
});

const detailOutput = notificationOutput.extend({
  event_key: z.string().describe("tells repeated events of a stage apart: empty for confirmation, the change id, or the due instant"),
  context: z.record(z.string(), z.unknown()).describe("what the message is about: previous and current delivery, balance amount and due date"),
  updated_at: timestampOutput,
});

function present(n: Row) {
  return {
    id: n.id,
    message_id: notificationMessageId(n.id),
    order_id: n.order_id,
    order_name: n.order_name,
    offer_id: n.offer_id,
    stage: n.stage,
    channel: n.channel,
    recipient: n.recipient,
    locale: n.locale,
    status: n.status,
    blocked_reason: n.blocked_reason,
    error: n.last_error,
    attempts: n.attempts,
    provider_message_id: n.provider_message_id,
    sent_at: n.sent_at?.toISOString() ?? null,
    created_at: n.created_at.toISOString(),
  };
}

const listPreorderNotifications = defineAction({
  name: "preorders.notifications.list",
  method: "GET",
  path: "/preorders/notifications",
  aliases: ["list preorder customer notifications", "show the preorder message log", "which preorder emails were sent"],
  description: `The log of notifications to preorder customers, newest first, as { notifications, page, per_page, total, next_cursor }: one entry per order, stage, event and channel, each with id, message_id, order_id, order_name, offer_id, stage (${NOTIFICATION_STAGES.join(", ")}), channel, recipient, locale, status (pending, sent, failed, blocked), blocked_reason (${BLOCKED_REASONS.join(", ")}), error, attempts, provider_message_id, sent_at and created_at. Filters (optional, combined with and): order_id, offer_id, stage, status, channel, from and to (${PERIOD_RULE}). ${PAGING_RULE}.`,
  notes: ["An order gets each stage at most once per event and channel: a repeated webhook or job never sends twice.", "A blocked entry is final; a failed one is not retried after its last attempt."],
  kind: "read",
  input: z
    .strictObject({
      order_id: uuid("order").optional(),
      offer_id: uuid("offer").optional(),
      stage: z.enum(NOTIFICATION_STAGES).optional(),
      status: z.enum(STATUSES).optional(),
      channel: z.enum(NOTIFICATION_CHANNELS).optional(),
      from: periodStart.optional(),
      to: periodEnd.optional(),
      ...pagingParams(z.tuple([cursorPart.timestamp, cursorPart.uuid])),
    })
    .superRefine(pageOrCursor),
  output: pageOutput("notifications", notificationOutput),
  async handler(ctx, { input }) {
    const where = new Filters([ctx.shopId])
      .add("n.shop_id = $1")
      .when(input.order_id, (p) => `n.order_id = ${p}::uuid`)
      .when(input.offer_id, (p) => `n.offer_id = ${p}::uuid`)
      .when(input.stage, (p) => `n.stage = ${p}`)
      .when(input.status, (p) => `n.status = ${p}`)
      .when(input.channel, (p) => `n.channel = ${p}`)
      .when(input.from, (p) => `n.created_at >= ${p}`)
      .when(input.to, (p) => `n.created_at < ${p}`);
    const p = paging(input);
    const { rows: counted } = await ctx.db.query<{ n: number }>(`select count(*)::int as n from preorder_notifications n where ${where.sql()}`, where.params);
    if (p.after) where.add(`(n.created_at, n.id) < (${where.param(p.after[0])}::timestamptz, ${where.param(p.after[1])}::uuid)`);
    const { rows } = await ctx.db.query<Row>(
      `select ${SELECT} from preorder_notifications n join preorder_orders o on o.id = n.order_id
       where ${where.sql()} order by n.created_at desc, n.id desc
       limit ${where.param(p.limit)} offset ${where.param(p.offset)}`,
      where.params,
    );
    return pageAnswer("notifications", p, rows, counted[0]?.n ?? 0, (n) => [n.cursor_at, n.id], present);
  },
});

const getPreorderNotification = defineAction({
  name: "preorders.notifications.get",
  method: "GET",
  path: "/preorders/notifications/{id}",
  aliases: ["show one preorder notification", "why was a preorder message blocked"],
  description: "One notification to a preorder customer (id from GET /preorders/notifications): the list's fields plus event_key, context (the delivery before and after a change, the balance and its due date) and updated_at. 404 for an id of another shop.",
  kind: "read",
  params: z.object({ id: z.string() }),
  input: z.strictObject({}),
  output: detailOutput,
  async handler(ctx, { params }) {
    const { rows } = isUuid(params.id)
      ? await ctx.db.query<Row>(
          `select ${SELECT} from preorder_notifications n join preorder_orders o on o.id = n.order_id where n.shop_id = $1 and n.id = $2`,
          [ctx.shopId, params.id],
        )
      : { rows: [] };
    const row = rows[0];
    if (!row) throw notFound(NOTIFICATION_RESOURCE, params.id);
    return { ...present(row), event_key: row.event_key, context: row.context, updated_at: row.updated_at.toISOString() };
  },
});

export const PREORDER_NOTIFICATION_ACTIONS: readonly AnyAction[] = [listPreorderNotifications, getPreorderNotification];
