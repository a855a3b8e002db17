import type { Channels } from "../src/channels/index.ts";
import type { TaskDeps } from "../src/core/job-task.ts";
import type { PlatformRuntime } from "../src/platform/runtime.ts";

/** What every task of the service may use: built once at start (src/runtime/service.ts). */
export interface ServiceTaskDeps extends TaskDeps {
  platform: PlatformRuntime;
  channels: Channels;
}
