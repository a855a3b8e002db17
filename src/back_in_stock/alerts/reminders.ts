import { withTransaction } from "../../core/db.ts";
import { loadBackInStockSettings } from "../settings/settings.ts";
import type { AlertDeps } from "./deps.ts";
import { type SendSummary, addSummary, emptySummary } from "../../messaging/ledger/send.ts";
import { SendContexts, claimBlocked, claimStage, sendLedgerRows } from "./ledger.ts";
import { stageSwitches } from "../templates/render.ts";
import { CHUNK_SIZE } from "./runs.ts";
import { mirrorStocks } from "./stock.ts";

/**
 * REMINDERS (the `bis_reminder_scan` crontab task). A signup enters bis_reminder_queue when its
 * `initial` alert is sent. Once reminder_delay_hours have passed, the scan decides, once: a
 * signup still `notified` (not converted, not unsubscribed) whose variant is still in stock (at
 * least the minimum restock quantity) gets the `reminder` stage claimed and sent; out of stock,
 * the reminder is refused for good (ledger `blocked`, reason out_of_stock); converted or
 * unsubscribed, it is dropped. A reminder more than REMINDER_HORIZON_DAYS late (the stage was
 * off, the worker was down) is dropped too. Shops whose reminder stage is off are not scanned.
 */

const REMINDER_HORIZON_DAYS = 7;
const PAGE = 500;

/** Due rows of one shop, oldest first: a range of index bis_reminder_queue_due, `limit` at a time. */
export const REMINDER_DUE_QUERY = `
  select q.signup_id, q.initial_sent_at, s.variant_id, s.status
  from bis_reminder_queue q join bis_signups s on s.id = q.signup_id
  where q.shop_id = $1 and q.initial_sent_at <= now() - make_interval(hours => $2)
  order by q.initial_sent_at
  limit $3
  for update of q skip locked`;

interface ReminderScanResult {
  shops: number;
  due: number;
  claimed: number;
  out_of_stock: number;
  dropped: number;
  sent: SendSummary;
}

export async function scanReminders(deps: AlertDeps, options: { pageSize?: number } = {}): Promise<ReminderScanResult> {
  const { pool } = deps;
  const result: ReminderScanResult = { shops: 0, due: 0, claimed: 0, out_of_stock: 0, dropped: 0, sent: emptySummary() };
  const { rows: shops } = await pool.query<{ id: string }>("select id from shops s where exists (select 1 from bis_reminder_queue q where q.shop_id = s.id)");
  const contexts = new SendContexts(deps);
  for (const { id: shopId } of shops) {
    if (!(await stageSwitches(pool, shopId)).reminder) continue;
    result.shops += 1;
    const settings = await loadBackInStockSettings(pool, shopId);
    const delayHours = settings.delivery.reminder_delay_hours;
    const expiredBefore = Date.now() - (delayHours + REMINDER_HORIZON_DAYS * 24) * 3_600_000;
    for (;;) {
      const claimed = await withTransaction(pool, async (db) => {
        const { rows: due } = await db.query<{ signup_id: string; initial_sent_at: Date; variant_id: string; status: string }>(REMINDER_DUE_QUERY, [
          shopId,
          delayHours,
          options.pageSize ?? PAGE,
        ]);
        if (due.length === 0) return undefined;
        result.due += due.length;
        const live = due.filter((d) => d.status === "notified" && d.initial_sent_at.getTime() >= expiredBefore);
        result.dropped += due.length - live.length;
        const stocks = await mirrorStocks(db, shopId, [...new Set(live.map((d) => d.variant_id))]);
        const inStock = live.filter((d) => (stocks.get(d.variant_id) ?? 0) >= settings.delivery.minimum_restock_quantity);
        const outOfStock = live.filter((d) => !inStock.includes(d));
        result.out_of_stock += await claimBlocked(
          db,
          shopId,
          outOfStock.map((d) => d.signup_id),
          "reminder",
          "out_of_stock",
        );
        const rows = await claimStage(
          db,
          shopId,
          inStock.map((d) => d.signup_id),
          "reminder",
        );
        await db.query("delete from bis_reminder_queue where signup_id = any($1::uuid[])", [due.map((d) => d.signup_id)]);
        return rows.map((r) => r.id);
      });
      if (!claimed) break;
      result.claimed += claimed.length;
      for (let i = 0; i < claimed.length; i += CHUNK_SIZE) {
        addSummary(result.sent, await sendLedgerRows(deps, claimed.slice(i, i + CHUNK_SIZE), { mode: "job" }, { contexts }));
      }
    }
  }
  return result;
}
