import os from "node:os";
import type pg from "pg";
import type { Log } from "../logger.ts";

export interface Heartbeat {
  /** Stops beating and removes the row; resolves once both are done. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Records, every `intervalSeconds`, that the graphile-worker pool `workerId` is alive. Its jobs
 * are locked under that id, so a row that stops moving tells the reaper (worker-reaper.ts) whose
 * locks to free. Times are the database's, the same clock the reaper compares them with.
 */
export function startHeartbeat(pool: pg.Pool, workerId: string, intervalSeconds: number, log: Log): Heartbeat {
  let inFlight: Promise<void> | undefined;
  const beat = () => {
    // A beat still waiting for a connection is enough: queueing more would only add load.
    inFlight ??= pool
      .query(
        `insert into worker_heartbeats (worker_id, pid, hostname) values ($1, $2, $3)
         on conflict (worker_id) do update set last_seen_at = now()`,
        [workerId, process.pid, os.hostname()],
      )
      .then(
        () => undefined,
        (error: unknown) => log.warn({ err: error, workerId }, "worker heartbeat failed"),
      )
      .finally(() => {
        inFlight = undefined;
      });
  };
  beat();
  const timer = setInterval(beat, intervalSeconds * 1000);
  // The worker keeps the process alive; the heartbeat must not once the worker has stopped.
  timer.unref();
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        clearInterval(timer);
        await inFlight;
        await pool.query("delete from worker_heartbeats where worker_id = $1", [workerId]).catch((error: unknown) => {
          // The reaper removes the row once it is stale; nothing is lost.
          log.warn({ err: error, workerId }, "could not remove the worker heartbeat");
        });
      })();
      return stopped;
    },
  };
}
