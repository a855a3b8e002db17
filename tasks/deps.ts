import type { TaskDeps } from "../src/core/job-task.ts";
import type { PlatformRuntime } from "../src/platform/runtime.ts";

/** What every task of the service may use. */
export interface ServiceTaskDeps extends TaskDeps {
  platform: PlatformRuntime;
}
