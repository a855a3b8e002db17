import type pg from "pg";
import type { Db } from "../core/db.ts";
import { rollbackFailed } from "../core/db.ts";

/**
 * The shop's plan and its monthly quota of back-in-stock messages (every stage and channel that
 * is sent counts; refusals and failures do not). The period is the UTC calendar month.
 *
 * Enforcement (reserveSends, called by the alert send path before it sends): under a
 * transaction-scoped advisory lock per shop, on a short transaction of its own, it reads the
 * period's sent messages (account_send_usage, counted by the mark of each message sent) plus the
 * reservations of messages still in flight (account_send_reservations whose ledger row is
 * pending), and reserves what still fits. The mark counts the messages and deletes their
 * reservations in one statement, so "sent" and "reserved" change in one commit. Two concurrent batches therefore never overshoot the quota:
 * the second one sees the first one's reservations. A sender that crashes leaves its rows
 * pending and reserved; whoever sends them later (recovery, a retry) finds the reservation and
 * keeps it, so nothing is counted twice, and a reservation of a row no longer pending counts
 * for nothing. The lock is held only for the count and the insert, never during a send.
 */

export const PLANS = {
  free: { title: "Free", monthly_alert_limit: 100 },
  starter: { title: "Starter", monthly_alert_limit: 2_500 },
  growth: { title: "Growth", monthly_alert_limit: 25_000 },
  scale: { title: "Scale", monthly_alert_limit: 250_000 },
} as const;

export type PlanName = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as PlanName[];
/** The plan of the demo shop and of every new shop until an operator changes it. */
const DEFAULT_PLAN: PlanName = "growth";

interface ShopPlan {
  plan: PlanName;
  title: string;
  /** The quota in force: the custom one when set, otherwise the plan's. */
  monthlyAlertLimit: number;
  customLimit: boolean;
}

interface Period {
  start: Date;
  end: Date;
}

/** The UTC calendar month of `now`: [start, end). */
export function monthPeriod(now: Date = new Date()): Period {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

const isoDate = (d: Date): string => d.toISOString().slice(0, 10);

export async function loadPlan(db: Db, shopId: string): Promise<ShopPlan> {
  const { rows } = await db.query<{ plan: string; monthly_alert_limit: number | null }>(
    "select plan, monthly_alert_limit from account_settings where shop_id = $1",
    [shopId],
  );
  const row = rows[0];
  const plan = row && row.plan in PLANS ? (row.plan as PlanName) : DEFAULT_PLAN;
  const custom = row?.monthly_alert_limit ?? null;
  return { plan, title: PLANS[plan].title, monthlyAlertLimit: custom ?? PLANS[plan].monthly_alert_limit, customLimit: custom !== null };
}

interface PlanUsage {
  plan: PlanName;
  plan_title: string;
  monthly_alert_limit: number;
  custom_limit: boolean;
  period: { from: string; to: string };
  alerts_sent: number;
  in_flight: number;
  remaining: number;
  blocked_by_plan_limit: number;
  by_channel: { email: { sent: number }; sms: { sent: number } };
}

/** The plan, the month's period and what the month used (account_send_usage, the reservations in flight, the log's refusals). */
export async function planUsage(db: Db, shopId: string, now: Date = new Date()): Promise<PlanUsage> {
  const plan = await loadPlan(db, shopId);
  const period = monthPeriod(now);
  const { rows } = await db.query<{ email: number; sms: number; in_flight: number; blocked: number }>(
    `select (select coalesce(sum(u.sent), 0) from account_send_usage u where u.shop_id = $1 and u.period_start = $4::date and u.channel = 'email')::int as email,
            (select coalesce(sum(u.sent), 0) from account_send_usage u where u.shop_id = $1 and u.period_start = $4::date and u.channel = 'sms')::int as sms,
            (select count(*) from account_send_reservations r join bis_ledger l on l.id = r.ledger_id
              where r.shop_id = $1 and r.period_start = $4::date and l.status = 'pending')::int as in_flight,
            (select count(*) from bis_notifications n
              where n.shop_id = $1 and n.status = 'blocked' and n.blocked_reason = 'plan_limit' and n.created_at >= $2 and n.created_at < $3)::int as blocked`,
    [shopId, period.start, period.end, isoDate(period.start)],
  );
  const counts = rows[0] ?? { email: 0, sms: 0, in_flight: 0, blocked: 0 };
  const sent = counts.email + counts.sms;
  return {
    plan: plan.plan,
    plan_title: plan.title,
    monthly_alert_limit: plan.monthlyAlertLimit,
    custom_limit: plan.customLimit,
    period: { from: period.start.toISOString(), to: period.end.toISOString() },
    alerts_sent: sent,
    in_flight: counts.in_flight,
    remaining: Math.max(0, plan.monthlyAlertLimit - sent - counts.in_flight),
    blocked_by_plan_limit: counts.blocked,
    by_channel: { email: { sent: counts.email }, sms: { sent: counts.sms } },
  };
}

/**
 * Reserves quota for messages of one shop about to be sent (ledger ids, in the order they should
 * get it) and answers the ids that may be sent; the others are over the plan's limit. Runs on a
 * connection of its own (the caller's transaction holds the ledger rows). See the file comment.
 */
export async function reserveSends(pool: pg.Pool, shopId: string, ledgerIds: readonly string[], now: Date = new Date()): Promise<Set<string>> {
  if (ledgerIds.length === 0) return new Set();
  const period = monthPeriod(now);
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query("begin");
    await client.query("select pg_advisory_xact_lock(hashtextextended('account_plan_quota:' || $1::text, 0))", [shopId]);
    const plan = await loadPlan(client, shopId);
    // Reservations of an earlier month, or of a message no longer pending (its signup deleted): nothing in flight.
    await client.query(
      `delete from account_send_reservations r where r.shop_id = $1
         and (r.period_start < $2::date or not exists (select 1 from bis_ledger l where l.id = r.ledger_id and l.status = 'pending'))`,
      [shopId, isoDate(period.start)],
    );
    const { rows: held } = await client.query<{ ledger_id: string }>(
      "select ledger_id from account_send_reservations where ledger_id = any($1::uuid[]) and shop_id = $2",
      [ledgerIds, shopId],
    );
    const granted = new Set(held.map((r) => r.ledger_id));
    const fresh = ledgerIds.filter((id) => !granted.has(id));
    if (fresh.length > 0) {
      const { rows } = await client.query<{ used: number }>(
        `select (select coalesce(sum(u.sent), 0) from account_send_usage u where u.shop_id = $1 and u.period_start = $2::date)::int
              + (select count(*) from account_send_reservations r join bis_ledger l on l.id = r.ledger_id
                 where r.shop_id = $1 and r.period_start = $2::date and l.status = 'pending')::int as used`,
        [shopId, isoDate(period.start)],
      );
      const room = Math.max(0, plan.monthlyAlertLimit - (rows[0]?.used ?? 0));
      const admitted = fresh.slice(0, room);
      if (admitted.length > 0) {
        await client.query(
          `insert into account_send_reservations (ledger_id, shop_id, period_start)
           select id, $2, $3::date from unnest($1::uuid[]) as id on conflict (ledger_id) do nothing`,
          [admitted, shopId, isoDate(period.start)],
        );
      }
      for (const id of admitted) granted.add(id);
    }
    await client.query("commit");
    return granted;
  } catch (error) {
    broken = await rollbackFailed(client);
    throw error;
  } finally {
    client.release(broken);
  }
}

/** Frees the reservations of marked messages, in the send's transaction (with the mark). */
export async function releaseReservations(db: Db, ledgerIds: readonly string[]): Promise<void> {
  if (ledgerIds.length === 0) return;
  await db.query("delete from account_send_reservations where ledger_id = any($1::uuid[])", [ledgerIds]);
}

/** Puts the shop on a plan (operators: `npm run cli -- plans set`); `limit` a custom monthly quota, null: the plan's. */
export async function setPlan(db: Db, shopId: string, plan: PlanName, limit: number | null): Promise<ShopPlan> {
  await db.query(
    `insert into account_settings (shop_id, plan, monthly_alert_limit) values ($1, $2, $3)
     on conflict (shop_id) do update set plan = excluded.plan, monthly_alert_limit = excluded.monthly_alert_limit, updated_at = now()`,
    [shopId, plan, limit],
  );
  return loadPlan(db, shopId);
}
