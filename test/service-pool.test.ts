import { afterAll, describe, expect, it } from "vitest";
import { type Service, startService } from "../src/runtime/service.ts";
import { intakeConcurrencyOf } from "../src/webhooks/intake.ts";
import { useTestEnv } from "./helpers/fixture.ts";

// A service must not pay connection setup during its first burst: its pool opens every connection
// at start and keeps them when idle. The web-only process's intake takes all of it but four.

const env = useTestEnv({ shop: false, dataDir: true });
let service: Service | undefined;

afterAll(async () => {
  await service?.stop();
});

describe("the service's database pool", () => {
  it("opens DB_POOL_SIZE connections at start and keeps them open when idle; a web-only intake takes all but four", async () => {
    const size = env.config.DB_POOL_SIZE;
    service = await startService(env.config, env.log, { web: true, worker: false, migrate: false, demo: false });
    expect(await service.poolOpened).toBe(size);
    expect(service.pool.totalCount).toBe(size);
    // Idle once the service's own start-up queries, which may run on one of them just after it
    // opened, are done (a fresh-clone CI run found 19 of 20 idle at the instant the pool had opened).
    const current = service;
    await expect.poll(() => current.pool.idleCount, { timeout: 5_000 }).toBe(size);
    expect(service.pool.totalCount).toBe(size);
    // pg-pool closes an idle connection only above `min`.
    expect(service.pool.options.min).toBe(size);
    expect(intakeConcurrencyOf(service.pool)).toBe(size - 4);
  });
});
