import type pg from "pg";
import { type Db, withTransaction } from "../core/db.ts";

/**
 * The shop's plan and its monthly quota of back-in-stock messages (every stage and channel that
 * is sent counts; refusals and failures do not). The period is the UTC calendar month.
 *
 * Enforcement: counters per shop, month and channel (account_send_usage): `sent`, counted by the
 * mark of each message sent, and `reserved`, the pending messages the quota admitted (each such
 * ledger row names the month that holds it: bis_ledger.quota_period). A message is admitted by a
 * batch's claim (claimChunk, in the claim's transaction) or, for a row claimed otherwise, by
 * reserveSends before it is sent; either takes a transaction-scoped advisory lock per shop first
 * and reads the counters after it, so two concurrent admissions never overshoot the quota: the
 * second reads the first one's reservations. The mark moves a message from reserved to sent (or
 * frees it) in its own statement, without the lock: it never adds to the total. A row that comes
 * back (a retry, the recovery sweep) keeps its reservation. A row deleted while pending leaves its
 * count behind: `reserved` is recounted from the pending rows by the recovery sweep, and by an
 * admission that finds the quota short (recountReserved). The lock is never held during a send.
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

export interface Period {
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

/** The period as its counters and ledger rows name it (its first day, YYYY-MM-DD). */
export const periodKey = (period: Period): string => isoDate(period.start);

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

/** The plan, the month's period and what the month used (account_send_usage: sent and reserved in flight; the log's refusals). */
export async function planUsage(db: Db, shopId: string, now: Date = new Date()): Promise<PlanUsage> {
  const plan = await loadPlan(db, shopId);
  const period = monthPeriod(now);
  const { rows } = await db.query<{ email: number; sms: number; in_flight: number; blocked: number }>(
    `select (select coalesce(sum(u.sent), 0) from account_send_usage u where u.shop_id = $1 and u.period_start = $4::date and u.channel = 'email')::int as email,
            (select coalesce(sum(u.sent), 0) from account_send_usage u where u.shop_id = $1 and u.period_start = $4::date and u.channel = 'sms')::int as sms,
            (select greatest(coalesce(sum(u.reserved), 0), 0) from account_send_usage u where u.shop_id = $1 and u.period_start = $4::date)::int as in_flight,
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

/** Takes the shop's quota lock for the transaction of `db`: admissions of one shop go one at a time. */
export async function lockQuota(db: Db, shopId: string): Promise<void> {
  await db.query("select pg_advisory_xact_lock(hashtextextended('account_plan_quota:' || $1::text, 0))", [shopId]);
}

/** What the period's counters hold for the shop: sent plus reserved (read under lockQuota). */
export async function quotaUsed(db: Db, shopId: string, period: Period): Promise<number> {
  const { rows } = await db.query<{ used: number }>(
    "select coalesce(sum(u.sent + u.reserved), 0)::int as used from account_send_usage u where u.shop_id = $1 and u.period_start = $2::date",
    [shopId, isoDate(period.start)],
  );
  return rows[0]?.used ?? 0;
}

/**
 * Sets the shop's `reserved` counters to its pending ledger rows that hold a reservation, month by
 * month and channel by channel (a row deleted while pending left its count behind). Under
 * lockQuota: no admission runs meanwhile; a mark that commits meanwhile can leave a count one too
 * high until the next recount, never too low.
 */
export async function recountReserved(db: Db, shopId: string): Promise<void> {
  const held = `select l.quota_period, s.channel, count(*)::int as n from bis_ledger l join bis_signups s on s.id = l.signup_id
    where l.shop_id = $1 and l.status = 'pending' and l.quota_period is not null group by 1, 2`;
  await db.query(
    `with held as (${held})
     update account_send_usage u set reserved = coalesce((select h.n from held h where h.quota_period = u.period_start and h.channel = u.channel), 0)
     where u.shop_id = $1 and u.reserved <> coalesce((select h.n from held h where h.quota_period = u.period_start and h.channel = u.channel), 0)`,
    [shopId],
  );
  await db.query(
    `with held as (${held})
     insert into account_send_usage (shop_id, period_start, channel, reserved)
     select $1, h.quota_period, h.channel, h.n from held h
     on conflict (shop_id, period_start, channel) do nothing`,
    [shopId],
  );
}

/** The recovery sweep's recount (recountReserved) of every shop with a reservation counted or held. Answers how many shops. */
export async function recountAllReserved(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ shop_id: string }>(
    `select shop_id from account_send_usage where reserved <> 0
     union select l.shop_id from bis_ledger l where l.status = 'pending' and l.quota_period is not null`,
  );
  for (const { shop_id: shopId } of rows) {
    await withTransaction(pool, async (db) => {
      await lockQuota(db, shopId);
      await recountReserved(db, shopId);
    });
  }
  return rows.length;
}

/**
 * Reserves quota for claimed messages of one shop about to be sent (ledger ids, in the order they
 * should get it) and answers the ids that may be sent; the others are over the plan's limit. A
 * row that holds a reservation already (its batch's claim, an earlier attempt) keeps it. Runs on a
 * transaction of its own. See the file comment.
 */
export async function reserveSends(pool: pg.Pool, shopId: string, ledgerIds: readonly string[], now: Date = new Date()): Promise<Set<string>> {
  if (ledgerIds.length === 0) return new Set();
  const period = monthPeriod(now);
  return withTransaction(pool, async (db) => {
    const { rows } = await db.query<{ id: string; channel: string; held: boolean }>(
      `select l.id, s.channel, l.quota_period is not null as held from bis_ledger l join bis_signups s on s.id = l.signup_id
       where l.id = any($1::uuid[]) and l.shop_id = $2 and l.status = 'pending'`,
      [ledgerIds, shopId],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const granted = new Set(rows.filter((r) => r.held).map((r) => r.id));
    const fresh = ledgerIds.filter((id) => byId.has(id) && !granted.has(id));
    if (fresh.length === 0) return granted;
    await lockQuota(db, shopId);
    const limit = (await loadPlan(db, shopId)).monthlyAlertLimit;
    let used = await quotaUsed(db, shopId, period);
    if (used + fresh.length > limit) {
      await recountReserved(db, shopId);
      used = await quotaUsed(db, shopId, period);
    }
    const admitted = fresh.slice(0, Math.max(0, limit - used));
    if (admitted.length > 0) {
      await db.query("update bis_ledger set quota_period = $2::date where id = any($1::uuid[])", [admitted, isoDate(period.start)]);
      await db.query(
        `insert into account_send_usage (shop_id, period_start, channel, reserved)
         select $1, $2::date, c.channel, count(*) from unnest($3::text[]) as c(channel) group by c.channel
         on conflict (shop_id, period_start, channel) do update set reserved = account_send_usage.reserved + excluded.reserved`,
        [shopId, isoDate(period.start), admitted.map((id) => byId.get(id)?.channel ?? "email")],
      );
    }
    for (const id of admitted) granted.add(id);
    return granted;
  });
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
