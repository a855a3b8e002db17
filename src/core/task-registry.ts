import { type JobHelpers, type ParsedCronItem, type Task, type TaskList, parseCronItems } from "graphile-worker";
import { type AnyTaskDefinition, PermanentJobFailure, type TaskContext, type TaskDeps } from "./tasks.ts";
import { endAttempts } from "../queue/admin.ts";
import { ShopUninstalled } from "../platform/installation.ts";

/** Every task the worker runs, by name; beside the action registry (registry.ts). */
export class TaskRegistry {
  readonly tasks: readonly AnyTaskDefinition[];
  private readonly byName = new Map<string, AnyTaskDefinition>();

  /** Fails fast on a duplicate or malformed name: one identifier, one run. */
  constructor(tasks: readonly AnyTaskDefinition[]) {
    this.tasks = tasks;
    for (const task of tasks) {
      if (!/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/.test(task.name)) throw new Error(`Invalid task name: ${task.name}`);
      if (this.byName.has(task.name)) throw new Error(`Duplicate task name: ${task.name}`);
      this.byName.set(task.name, task);
    }
  }

  get(name: string): AnyTaskDefinition | undefined {
    return this.byName.get(name);
  }

  /** Every task's schedules, parsed by graphile-worker (a bad pattern or a duplicate identifier throws). */
  cronItems(): ParsedCronItem[] {
    const items = parseCronItems(this.tasks.flatMap((task) => (task.cron ?? []).map((schedule) => ({ ...schedule, task: task.name }))));
    // parseCrontab refuses this, parseCronItems does not: two schedules under one identifier
    // would share one last-run record, and one of them would never be backfilled or fire on time.
    const seen = new Set<string>();
    for (const item of items) {
      if (seen.has(item.identifier)) throw new Error(`Two schedules of ${item.task} share the identifier ${item.identifier}: give each its own`);
      seen.add(item.identifier);
    }
    return items;
  }

  /** graphile-worker's task list: each task behind the one wrapper below. */
  taskList(deps: TaskDeps): TaskList {
    return Object.fromEntries(this.tasks.map((task) => [task.name, wrap(task, deps)]));
  }
}

/**
 * The one policy for a payload the task's schema refuses: it can never succeed, so it is logged
 * at error (job id, task, attempt, issues) and the job finishes without a retry. A run that
 * throws a PermanentJobFailure is failed for good, with its reason, on its first attempt. A run
 * that asked for the client of a shop the app is uninstalled from (ShopUninstalled) is skipped:
 * the job completes, since no retry can succeed before a reinstall, which resumes the shop's work.
 */
function wrap(task: AnyTaskDefinition, deps: TaskDeps): Task {
  return async (raw: unknown, helpers: JobHelpers) => {
    const parsed = task.payload.safeParse(raw);
    if (!parsed.success) {
      deps.log.error(
        { workerJobId: helpers.job.id, task: task.name, attempt: helpers.job.attempts, issues: parsed.error.issues },
        "discarding job: payload refused by the task's schema",
      );
      return;
    }
    const ctx: TaskContext = {
      ...deps,
      workerJobId: helpers.job.id,
      attempt: helpers.job.attempts,
      maxAttempts: helpers.job.max_attempts,
      signal: helpers.abortSignal,
    };
    try {
      await task.run(ctx, parsed.data);
    } catch (error) {
      if (error instanceof ShopUninstalled) {
        deps.log.info({ workerJobId: helpers.job.id, task: task.name, shopId: error.shopId }, "job skipped: the app is uninstalled from the shop's store");
        return;
      }
      if (error instanceof PermanentJobFailure) {
        // With its attempts used up, the failure graphile-worker records next is final.
        await endAttempts(deps.pool, helpers.job.id);
        deps.log.error({ workerJobId: helpers.job.id, task: task.name, attempt: helpers.job.attempts, reason: error.message }, "job failed for good: not retried");
      }
      throw error;
    }
  };
}
