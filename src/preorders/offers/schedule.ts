import type pg from "pg";
import { z } from "zod";
import { type Db, withTransaction } from "../../core/db.ts";
import { declareTask, enqueue } from "../../core/tasks.ts";
import { type OfferStatus, touchOffer } from "./model.ts";
import { setOfferStatus } from "./status.ts";
import { removeJobByKey } from "../../queue/admin.ts";

/**
 * An offer's schedule: when the worker enables it and when it disables it. Each edge is one
 * graphile-worker job (`preorders_offer_schedule`) with the instant as its run_at and the key
 * `offer_schedule:<offer>:<edge>`: scheduling again replaces the job (add_job's job key), clearing
 * an edge removes it (remove_job). The instant is also kept on the offer (sql/060): the job acts
 * only while the offer still holds the instant it was queued for, so a job that escaped its
 * replacement (already running) changes nothing.
 */

const SCHEDULE_EDGES = ["enable", "disable"] as const;
type ScheduleEdge = (typeof SCHEDULE_EDGES)[number];

const TARGET: Record<ScheduleEdge, OfferStatus> = { enable: "active", disable: "disabled" };
const COLUMN: Record<ScheduleEdge, "schedule_enable_at" | "schedule_disable_at"> = { enable: "schedule_enable_at", disable: "schedule_disable_at" };

export const offerScheduleTask = declareTask({
  name: "preorders_offer_schedule",
  payload: z.object({ shop_id: z.uuid(), offer_id: z.uuid(), edge: z.enum(SCHEDULE_EDGES), at: z.iso.datetime({ offset: true }) }),
});

/** Attempts of one scheduled edge (graphile-worker's backoff between them). */
const SCHEDULE_MAX_ATTEMPTS = 10;

export const scheduleJobKey = (offerId: string, edge: ScheduleEdge): string => `offer_schedule:${offerId}:${edge}`;

interface OfferSchedule {
  enable_at: Date | null;
  disable_at: Date | null;
}

/** The schedule as answered: ISO strings or null. */
export function presentSchedule(schedule: OfferSchedule): { enable_at: string | null; disable_at: string | null } {
  return { enable_at: schedule.enable_at?.toISOString() ?? null, disable_at: schedule.disable_at?.toISOString() ?? null };
}

export async function readSchedule(db: Db, shopId: string, offerId: string): Promise<OfferSchedule> {
  const { rows } = await db.query<{ schedule_enable_at: Date | null; schedule_disable_at: Date | null }>(
    "select schedule_enable_at, schedule_disable_at from preorder_offers where shop_id = $1 and id = $2",
    [shopId, offerId],
  );
  return { enable_at: rows[0]?.schedule_enable_at ?? null, disable_at: rows[0]?.schedule_disable_at ?? null };
}

async function removeEdgeJob(db: Db, offerId: string, edge: ScheduleEdge): Promise<void> {
  // remove_job deletes a waiting job; one already running is left to finish, and finds its edge cleared.
  await removeJobByKey(db, scheduleJobKey(offerId, edge));
}

/**
 * Makes the offer's schedule exactly `schedule`, in the caller's transaction: each edge with an
 * instant gets its job (replacing the one queued before), each edge without one loses its job.
 */
export async function setSchedule(db: Db, shopId: string, offerId: string, schedule: OfferSchedule): Promise<void> {
  const { rowCount } = await db.query(
    `update preorder_offers set schedule_enable_at = $3, schedule_disable_at = $4
     where shop_id = $1 and id = $2 and (schedule_enable_at, schedule_disable_at) is distinct from ($3::timestamptz, $4::timestamptz)`,
    [shopId, offerId, schedule.enable_at, schedule.disable_at],
  );
  // The storefront shows the end of the schedule (a to_schedule_end countdown): a change is a
  // change of the offer, synced to the platform like any other (its revision and updated_at move).
  if ((rowCount ?? 0) > 0) await touchOffer(db, shopId, offerId);
  for (const edge of SCHEDULE_EDGES) {
    const at = edge === "enable" ? schedule.enable_at : schedule.disable_at;
    if (at === null) {
      await removeEdgeJob(db, offerId, edge);
      continue;
    }
    await enqueue(
      db,
      offerScheduleTask,
      { shop_id: shopId, offer_id: offerId, edge, at: at.toISOString() },
      { jobKey: scheduleJobKey(offerId, edge), jobKeyMode: "replace", runAt: at, maxAttempts: SCHEDULE_MAX_ATTEMPTS },
    );
  }
}

/** Clears the schedule and removes its jobs (unschedule, delete). */
export function clearSchedule(db: Db, shopId: string, offerId: string): Promise<void> {
  return setSchedule(db, shopId, offerId, { enable_at: null, disable_at: null });
}

type ScheduleOutcome = { outcome: "enabled" | "disabled" | "unchanged" } | { outcome: "skipped"; reason: string };

/**
 * The job of one edge: in one transaction, with the offer locked, clears the edge and moves the
 * offer to its status (the same function as the enable and disable actions: the sync follows).
 * Skipped when the offer is gone or deleted, or when its schedule no longer holds this instant.
 */
export async function runScheduleEdge(pool: pg.Pool, payload: z.output<typeof offerScheduleTask.payload>): Promise<ScheduleOutcome> {
  const { shop_id: shopId, offer_id: offerId, edge, at } = payload;
  return withTransaction(pool, async (db) => {
    const { rows } = await db.query<{ id: string; status: OfferStatus; deleted_at: Date | null; at: Date | null }>(
      `select id, status, deleted_at, ${COLUMN[edge]} as at from preorder_offers where shop_id = $1 and id = $2 for update`,
      [shopId, offerId],
    );
    const offer = rows[0];
    if (!offer) return { outcome: "skipped", reason: "the offer does not exist" };
    if (offer.deleted_at !== null) return { outcome: "skipped", reason: "the offer is deleted" };
    if (offer.at === null || offer.at.getTime() !== Date.parse(at)) return { outcome: "skipped", reason: "the offer's schedule changed" };
    await db.query(`update preorder_offers set ${COLUMN[edge]} = null where id = $1`, [offerId]);
    const changed = await setOfferStatus(db, shopId, offer, TARGET[edge]);
    return { outcome: changed ? (edge === "enable" ? "enabled" : "disabled") : "unchanged" };
  });
}
