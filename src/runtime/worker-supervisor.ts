import type { Runner } from "graphile-worker";
import type { Log } from "../logger.ts";

/**
 * Keeps graphile-worker running through a lost database. graphile-worker 0.18 ends its worker pool
 * at the first failure to record a job's completion or failure (its batcher's retry loop exits
 * after one attempt: graphile/worker#636, "Could not completeJobs; queue is in an inconsistent
 * state; aborting"), and its runner then stops and resolves `promise` as after a requested stop
 * (graphile/worker#635): a worker process kept nothing else alive and exited, in any database
 * outage that caught a job finishing. So a runner that ends without being asked is started again,
 * with backoff while the database is away (run() itself needs it), until stop(). Cron does not
 * run a tick twice across a restart: graphile-worker records each tick it schedules in the
 * database (known_crontabs.last_execution) and schedules a tick only past that.
 */

/** Backoff between starts while the database is away: doubling from 500 ms, at most 15 s. */
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 15_000;

export interface SupervisedRunner {
  /** Settles once stop() has stopped the runner of the moment. */
  promise: Promise<void>;
  stop(reason?: string): Promise<void>;
  kill(reason?: string): Promise<void>;
}

/**
 * Supervises `first`; `start` makes the next runner, `restarted` runs after each restart (what
 * the ended runner left: its locked jobs, the sends of its batch). A failure of `restarted` is
 * logged: the periodic reaper and recovery sweep catch up on it.
 */
export function superviseRunner(first: Runner, start: () => Promise<Runner>, restarted: () => Promise<void>, log: Log): SupervisedRunner {
  let current: Runner | undefined = first;
  let stopping = false;
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const loop = async (): Promise<void> => {
    while (current) {
      // Resolves on a requested stop and on a pool that ended by itself alike (graphile/worker#635).
      await current.promise.catch(() => undefined);
      if (stopping) return;
      log.warn("graphile-worker stopped by itself (the database went away?): starting it again");
      current = undefined;
      for (let attempt = 0; !stopping && !current; attempt += 1) {
        await pause(Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** attempt));
        if (stopping) return;
        try {
          current = await start();
        } catch (error) {
          log.warn({ err: error, attempt }, "graphile-worker could not start again yet");
        }
      }
      if (stopping) {
        await current?.stop("shutdown");
        return;
      }
      log.info("graphile-worker running again");
      await restarted().catch((error: unknown) => log.warn({ err: error }, "after the worker's restart: could not release what its previous pool left"));
    }
  };
  const running = loop();

  const stop = async (reason?: string) => {
    stopping = true;
    wake?.();
    const runner = current;
    // A runner that ended by itself is already stopped (its stop() would reject).
    if (runner) await runner.stop(reason).catch((error: unknown) => void log.warn({ err: error }, "stopping the worker"));
    await running;
  };
  return {
    promise: running,
    stop,
    kill: async (reason) => {
      stopping = true;
      wake?.();
      await current?.kill(reason);
      await running;
    },
  };
}
