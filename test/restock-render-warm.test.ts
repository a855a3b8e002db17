import type { Runner } from "graphile-worker";
import { afterAll, describe, expect, it } from "vitest";
import { createChannels } from "../src/channels/index.ts";
import { closeRenderPool, renderThreads } from "../src/messaging/render/pool.ts";
import { startWorker } from "../src/runtime/worker.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { testPlatformRuntime } from "./helpers/platform.ts";

// A worker process starts its render threads with it: a restock's first alerts after a quiet
// spell do not wait for a thread to start and load the template engine.

const env = useTestEnv({ app: false, shop: false, dataDir: true });

let runner: Runner | undefined;
afterAll(async () => {
  await runner?.stop();
  await closeRenderPool();
});

describe("the worker's render threads", () => {
  it("are started with the worker, before any render", async () => {
    expect(renderThreads()).toBe(0);
    const channels = createChannels(env.config, env.log);
    runner = await startWorker({ pool: env.pool, log: env.log, config: env.config, platform: testPlatformRuntime(), channels }, { pollInterval: 100, cron: false });
    expect(renderThreads()).toBeGreaterThan(0);
  });
});
