import { z } from "zod";
import { type AnyAction, defineAction } from "../../../core/action.ts";
import { pageOutput, timestampOutput } from "../../../core/outputs.ts";
import { PAGING_RULE, cursorPart, pageAnswer, pageOrCursor, paging, pagingParams } from "../../../core/paging.ts";
import { uuid } from "../../../core/schemas.ts";
import { Filters } from "../../../core/sql-filters.ts";
import { WEBHOOK_TOPICS } from "../developer.ts";

const STATUSES = ["pending", "delivered", "failed", "skipped"] as const;

interface Row {
  id: string;
  topic: string;
  order_id: string | null;
  status: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
  cursor_at: string;
}

const eventOutput = z.strictObject({
  id: z.string().describe("the event's id: the body's id and the x-preorder-event-id header, the same on every attempt"),
  topic: z.enum(WEBHOOK_TOPICS),
  order_id: z.string().nullable(),
  status: z.enum(STATUSES).describe("pending (queued or between retries), delivered (a 2xx), failed (every attempt failed), skipped (no endpoint or secret when it ran)"),
  attempts: z.int().min(0),
  last_status: z.int().nullable().describe("the endpoint's last HTTP status; null when it never answered"),
  last_error: z.string().nullable(),
  created_at: timestampOutput,
  delivered_at: timestampOutput.nullable(),
});

const listWebhookEvents = defineAction({
  name: "preorders.developer_settings.webhook_events",
  method: "GET",
  path: "/preorders/developer_settings/webhook_events",
  aliases: ["list preorder webhook deliveries", "did the preorder webhook reach my endpoint"],
  description: `The order-lifecycle events recorded for the shop's webhook endpoint and how their delivery went, newest first, as { events, page, per_page, total, next_cursor }: id, topic, order_id, status (pending, delivered, failed, skipped), attempts, last_status, last_error, created_at, delivered_at. Filters: status, topic, order_id. ${PAGING_RULE}.`,
  kind: "read",
  input: z
    .strictObject({
      status: z.enum(STATUSES).optional(),
      topic: z.enum(WEBHOOK_TOPICS).optional(),
      order_id: uuid("order").optional(),
      ...pagingParams(z.tuple([cursorPart.timestamp, cursorPart.uuid])),
    })
    .superRefine(pageOrCursor),
  output: pageOutput("events", eventOutput),
  async handler(ctx, { input }) {
    const where = new Filters([ctx.shopId])
      .add("e.shop_id = $1")
      .when(input.status, (p) => `e.status = ${p}`)
      .when(input.topic, (p) => `e.topic = ${p}`)
      .when(input.order_id, (p) => `e.order_id = ${p}::uuid`);
    const p = paging(input);
    const { rows: counted } = await ctx.db.query<{ n: number }>(`select count(*)::int as n from preorder_webhook_events e where ${where.sql()}`, where.params);
    if (p.after) where.add(`(e.created_at, e.id) < (${where.param(p.after[0])}::timestamptz, ${where.param(p.after[1])}::uuid)`);
    const { rows } = await ctx.db.query<Row>(
      `select e.id, e.topic, e.order_id, e.status, e.attempts, e.last_status, e.last_error, e.created_at, e.delivered_at,
              to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at
       from preorder_webhook_events e where ${where.sql()} order by e.created_at desc, e.id desc
       limit ${where.param(p.limit)} offset ${where.param(p.offset)}`,
      where.params,
    );
    return pageAnswer("events", p, rows, counted[0]?.n ?? 0, (e) => [e.cursor_at, e.id], (e) => ({
      id: e.id,
      topic: e.topic,
      order_id: e.order_id,
      status: e.status,
      attempts: e.attempts,
      last_status: e.last_status,
      last_error: e.last_error,
      created_at: e.created_at.toISOString(),
      delivered_at: e.delivered_at?.toISOString() ?? null,
    }));
  },
});

export const WEBHOOK_EVENT_ACTIONS: readonly AnyAction[] = [listWebhookEvents];
