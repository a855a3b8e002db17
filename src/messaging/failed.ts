import type pg from "pg";
import type { Db } from "../core/db.ts";
import { withTransaction } from "../core/db.ts";
import { enqueue } from "../core/tasks.ts";
import { sendTask } from "../back_in_stock/alerts/deps.ts";
import { MAX_NOTIFICATION_ATTEMPTS, notificationSendTask } from "../preorders/notifications/task-refs.ts";
import type { MessageArea } from "./areas.ts";
import { sendAttemptsFor } from "./retry.ts";

/**
 * Failed messages of both areas, as operators see and resend them (the CLI's `messages`, the
 * console's failed-messages view): a back-in-stock alert, reminder or thank-you (bis_ledger) or a
 * preorder customer notification (preorder_notifications) that failed for good, with its reason.
 * A resend takes the same row back to pending and queues its send job: the same message id, so a
 * recipient's mail system can tell it from a new message.
 */


export interface FailedMessage {
  id: string;
  area: MessageArea;
  shop_id: string;
  shop_name: string;
  stage: string;
  channel: string;
  recipient: string;
  attempts: number;
  error: string | null;
  created_at: Date;
}

interface FailedFilter {
  shopId?: string | undefined;
  area?: MessageArea | undefined;
  /** Only these message ids (either area's). */
  ids?: readonly string[] | undefined;
  limit?: number;
}

const FAILED = `
  select l.id, 'back_in_stock' as area, l.shop_id, sh.name as shop_name, l.stage, s.channel, s.contact as recipient, l.attempts,
         l.last_error as error, l.created_at
  from bis_ledger l join bis_signups s on s.id = l.signup_id join shops sh on sh.id = l.shop_id
  where l.status = 'failed' and ($1::uuid is null or l.shop_id = $1) and ($2::text is null or $2 = 'back_in_stock')
    and ($3::uuid[] is null or l.id = any($3))
  union all
  select n.id, 'preorders', n.shop_id, sh.name, n.stage, n.channel, n.recipient, n.attempts, n.last_error, n.created_at
  from preorder_notifications n join shops sh on sh.id = n.shop_id
  where n.status = 'failed' and ($1::uuid is null or n.shop_id = $1) and ($2::text is null or $2 = 'preorders')
    and ($3::uuid[] is null or n.id = any($3))`;

/** Failed messages, newest first. */
export async function listFailedMessages(db: Db, filter: FailedFilter = {}): Promise<FailedMessage[]> {
  const { rows } = await db.query<FailedMessage>(`${FAILED} order by created_at desc, id limit $4`, [
    filter.shopId ?? null,
    filter.area ?? null,
    filter.ids ?? null,
    filter.limit ?? 100,
  ]);
  return rows;
}

/** How many failed messages each shop has (the console's overview). */
export async function countFailedMessages(db: Db, filter: Omit<FailedFilter, "ids" | "limit"> = {}): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from (${FAILED}) f`, [filter.shopId ?? null, filter.area ?? null, null]);
  return rows[0]?.n ?? 0;
}

export interface ResendResult {
  back_in_stock: number;
  preorders: number;
}

/** The failed rows of one area's ledger that a resend's filter ($1 shop, $2 area, $3 ids, $4 limit) takes, locked. */
function pickFailed(table: "bis_ledger" | "preorder_notifications", area: MessageArea): string {
  return `select m.id from ${table} m
    where m.status = 'failed' and ($1::uuid is null or m.shop_id = $1) and ($2::text is null or $2 = '${area}') and ($3::uuid[] is null or m.id = any($3))
    order by m.created_at limit $4
    for update skip locked`;
}

/**
 * Sends failed messages again (all that match the filter; at most `limit`, default 1000, per
 * call): each row back to pending (a back-in-stock `initial` also takes its signup back to
 * pending) and its send job queued, in one transaction. Answers how many of each area.
 */
export async function resendFailedMessages(pool: pg.Pool, filter: FailedFilter, retryHours: number): Promise<ResendResult> {
  return withTransaction(pool, async (db) => {
    const { rows: alerts } = await db.query<{ id: string }>(
      `with picked as (${pickFailed("bis_ledger", "back_in_stock")}), reclaimed as (
         update bis_ledger l set status = 'pending', lease_pid = null, lease_backend_start = null
         from picked where l.id = picked.id
         returning l.id, l.signup_id, l.stage
       ), signups as (
         update bis_signups s set status = 'pending', updated_at = now()
         from reclaimed r where r.stage = 'initial' and s.id = r.signup_id and s.status = 'failed'
       )
       select id from reclaimed`,
      [filter.shopId ?? null, filter.area ?? null, filter.ids ?? null, filter.limit ?? 1000],
    );
    const attempts = sendAttemptsFor(retryHours);
    for (const { id } of alerts) await enqueue(db, sendTask, { ledger_id: id }, { jobKey: `${sendTask.name}:${id}`, maxAttempts: attempts });
    const { rows: notifications } = await db.query<{ id: string }>(
      `with picked as (${pickFailed("preorder_notifications", "preorders")})
       update preorder_notifications n set status = 'pending', updated_at = now()
       from picked where n.id = picked.id
       returning n.id`,
      [filter.shopId ?? null, filter.area ?? null, filter.ids ?? null, filter.limit ?? 1000],
    );
    for (const { id } of notifications) {
      await enqueue(db, notificationSendTask, { notification_id: id }, { jobKey: `${notificationSendTask.name}:${id}`, maxAttempts: MAX_NOTIFICATION_ATTEMPTS });
    }
    return { back_in_stock: alerts.length, preorders: notifications.length };
  });
}

/**
 * Every failed message the filter matches sent again, in chunks of `resendFailedMessages`. The
 * rounds are bounded by the count at the start: a message that fails again at once (a refused
 * address) would otherwise be taken again and again.
 */
export async function resendAllFailedMessages(pool: pg.Pool, filter: Omit<FailedFilter, "ids" | "limit">, retryHours: number): Promise<ResendResult> {
  const chunk = 1000;
  const total: ResendResult = { back_in_stock: 0, preorders: 0 };
  const rounds = Math.ceil((await countFailedMessages(pool, filter)) / chunk) + 1;
  for (let round = 0; round < rounds; round++) {
    const done = await resendFailedMessages(pool, { ...filter, limit: chunk }, retryHours);
    total.back_in_stock += done.back_in_stock;
    total.preorders += done.preorders;
    if (done.back_in_stock < chunk && done.preorders < chunk) break;
  }
  return total;
}
