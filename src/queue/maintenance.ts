import { makeWorkerUtils } from "graphile-worker";
import type pg from "pg";
import type { Log } from "../logger.ts";
import { workerLogger } from "../logger.ts";
import { QUEUE_RELATIONS } from "./relations.ts";

interface QueueGarbage {
  job_queues: number;
  task_identifiers: number;
}

/**
 * graphile-worker's own cleanup: named job queues no job uses (one per offer is created by its
 * sync and never removed otherwise) and task identifiers no job uses, except those of tasks this
 * service runs (workers cache their ids). Permanently failed jobs are kept: the console shows
 * them. Answers how many rows went.
 */
export async function collectQueueGarbage(pool: pg.Pool, log: Log, taskNamesToKeep: readonly string[]): Promise<QueueGarbage> {
  const count = async () => {
    const { rows } = await pool.query<QueueGarbage>(
      `select (select count(*) from graphile_worker._private_job_queues)::int as job_queues,
              (select count(*) from ${QUEUE_RELATIONS.privateTasks})::int as task_identifiers`,
    );
    return rows[0] ?? { job_queues: 0, task_identifiers: 0 };
  };
  const before = await count();
  const utils = await makeWorkerUtils({ pgPool: pool, logger: workerLogger(log) });
  try {
    await utils.cleanup({ tasks: ["GC_JOB_QUEUES", "GC_TASK_IDENTIFIERS"], taskIdentifiersToKeep: taskNamesToKeep });
  } finally {
    await utils.release();
  }
  const after = await count();
  return { job_queues: before.job_queues - after.job_queues, task_identifiers: before.task_identifiers - after.task_identifiers };
}
