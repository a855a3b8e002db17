import type pg from "pg";
import { withTransaction } from "../core/db.ts";
import { QUEUE_RELATIONS } from "./relations.ts";

export interface QueueGarbage {
  job_queues: number;
}

/**
 * Removes the named job queues no job uses (each offer's sync has a queue of its own, created by
 * add_job and never removed otherwise), as graphile-worker's GC_JOB_QUEUES does, but under a lock:
 * add_job creates a queue with `insert ... on conflict do nothing` and its job in the same
 * uncommitted transaction, with no foreign key between them, so the unlocked cleanup could delete
 * the queue of a job not yet visible, which would then never be fetched. The lock waits for those
 * transactions to end (their inserts hold ROW EXCLUSIVE) and makes new ones wait for this one.
 * Task identifiers are not collected (docs/decisions/0188). Answers how many queues went.
 */
export async function collectQueueGarbage(pool: pg.Pool): Promise<QueueGarbage> {
  return withTransaction(pool, async (db) => {
    // A busy queue table is tried again at the next run rather than waited for.
    await db.query("set local lock_timeout = '5s'");
    await db.query(`lock table ${QUEUE_RELATIONS.privateJobQueues} in share row exclusive mode`);
    const { rowCount } = await db.query(
      `delete from ${QUEUE_RELATIONS.privateJobQueues} q
       where q.locked_at is null and not exists (select 1 from ${QUEUE_RELATIONS.privateJobs} j where j.job_queue_id = q.id)`,
    );
    return { job_queues: rowCount ?? 0 };
  });
}
