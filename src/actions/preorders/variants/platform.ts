import type { Config } from "../../../config.ts";
import type { Log } from "../../../logger.ts";
import type { PlatformRuntime } from "../../../platform/runtime.ts";
import { createPlatformRuntime } from "../../../runtime/platform.ts";

// Actions get no platform runtime in their context; the few that call the platform live (reads
// that say so) share one per process and configuration, built from the same secrets as the
// service's own (SECRETS_KEY, or the generated key under DATA_DIR), so it opens the same tokens.
const perConfig = new WeakMap<Config, Promise<PlatformRuntime>>();

export function platformRuntimeFor(config: Config, log: Log): Promise<PlatformRuntime> {
  let runtime = perConfig.get(config);
  if (!runtime) {
    runtime = createPlatformRuntime(config, log);
    perConfig.set(config, runtime);
    // A failure (an unreadable secrets file) is not cached: the next request tries again.
    runtime.catch(() => perConfig.delete(config));
  }
  return runtime;
}
