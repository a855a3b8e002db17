import { type Channels, createChannels } from "../channels/index.ts";
import type { Config } from "../config.ts";
import type { Services } from "../core/services.ts";
import type { Log } from "../logger.ts";
import type { PlatformRuntime } from "../platform/runtime.ts";
import { createPlatformRuntime } from "./platform.ts";
import { closeRenderPool, setRenderThreads } from "../messaging/render/pool.ts";

export interface ServiceServices extends Services {
  /** Closes what it created (the channels, the render pool's threads); what was given stays the giver's to close. */
  close(): Promise<void>;
}

/** The process's services, built on first use from the configuration unless given (tests, benchmarks). */
export function createServices(config: Config, log: Log, given: { platform?: PlatformRuntime; channels?: Channels } = {}): ServiceServices {
  let platform: Promise<PlatformRuntime> | undefined = given.platform ? Promise.resolve(given.platform) : undefined;
  let channels = given.channels;
  let created: Channels | undefined;
  setRenderThreads(config.RENDER_THREADS);
  return {
    platform() {
      if (!platform) {
        const building = createPlatformRuntime(config, log);
        platform = building;
        // A failure (an unreadable secrets file) is not kept: the next use tries again.
        building.catch(() => {
          if (platform === building) platform = undefined;
        });
      }
      return platform;
    },
    channels() {
      if (!channels) channels = created = createChannels(config, log);
      return channels;
    },
    async close() {
      await created?.close();
      await closeRenderPool();
    },
  };
}
