import type { JobHelpers } from "graphile-worker";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TaskRegistry } from "../src/core/task-registry.ts";
import { defineTask } from "../src/core/tasks.ts";
import { createLogger } from "../src/logger.ts";
import { applyAppUninstalled } from "../src/webhooks/lifecycle/uninstalled.ts";
import { useTestEnv } from "./helpers/fixture.ts";

// A graphile task that asks for the client of a shop the app is uninstalled from ends skipped:
// its run resolves, so graphile-worker completes the job instead of retrying it (decision 0222).

const env = useTestEnv({ app: false, shop: true, emulator: {}, connect: true });

const needsStore = defineTask({
  name: "test_needs_store",
  payload: z.object({ shop_id: z.uuid() }),
  async run(ctx, { shop_id: shopId }) {
    await ctx.platform.clientFor(ctx.pool, shopId);
    return "called the store";
  },
});

function runOnce(): Promise<void> {
  const infos: unknown[] = [];
  const log = Object.assign(createLogger("silent"), { info: (details: unknown) => infos.push(details) });
  const task = new TaskRegistry([needsStore]).taskList({ pool: env.pool, log, config: env.config, platform: env.platform, channels: env.channels }).test_needs_store;
  if (!task) throw new Error("no task");
  const helpers = { job: { id: "42", attempts: 1, max_attempts: 25 }, abortSignal: undefined } as unknown as JobHelpers;
  return Promise.resolve(task({ shop_id: env.shopId }, helpers)).then(() => {
    expect(infos).toEqual([{ workerJobId: "42", task: "test_needs_store", shopId: env.shopId }]);
  });
}

describe("a task of an uninstalled shop", () => {
  it("completes skipped (resolves, logged at info) instead of throwing for a retry", async () => {
    // Cached first, as a process that ran the shop's jobs before has it.
    await env.platform.clientFor(env.pool, env.shopId);
    await applyAppUninstalled(env.pool, env.shopId, {}, { id: 1, triggeredAt: new Date() });
    await runOnce();
  });
});
