import type { Channels } from "../channels/index.ts";
import type { PlatformRuntime } from "../platform/runtime.ts";

/**
 * What the service builds once at start (src/runtime/services.ts) and hands to every action:
 * one platform client per shop and one set of senders (one SMTP pool) per process. Each is made
 * on first use, so a process or test that never calls the platform or sends a message never
 * reads the secrets or opens a connection.
 */
export interface Services {
  platform(): Promise<PlatformRuntime>;
  channels(): Channels;
}

/** For dispatchers built without services (tests of the HTTP layer alone): any use is a bug. */
export const NO_SERVICES: Services = {
  platform: () => Promise.reject(new Error("this dispatcher was built without services")),
  channels: () => {
    throw new Error("this dispatcher was built without services");
  },
};
