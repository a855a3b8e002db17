import { describe, expect, it } from "vitest";
import { coalescing } from "../src/core/coalesce.ts";

// queueRestockBurst's coalescing (src/core/coalesce.ts): a wave of calls under one key makes two
// runs, and every call is answered by a run that started after it.

/** A run that stays in flight until released, recording when each started. */
function gatedRuns() {
  const started: string[] = [];
  const releases: (() => void)[] = [];
  const failures: ((error: Error) => void)[] = [];
  const run = (key: string) =>
    new Promise<void>((resolve, reject) => {
      started.push(key);
      releases.push(resolve);
      failures.push(reject);
    });
  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { run, started, release: (i: number) => releases[i]?.(), fail: (i: number, error: Error) => failures[i]?.(error), settle };
}

describe("coalescing", () => {
  it("runs at once when none is in flight; the calls during a run share one next run, started after it", async () => {
    const g = gatedRuns();
    const call = coalescing(g.run);
    const answered: string[] = [];
    const first = call("shop").then(() => answered.push("first"));
    await g.settle();
    expect(g.started).toEqual(["shop"]);
    const joined = [1, 2, 3].map((n) => call("shop").then(() => answered.push(`joined ${n}`)));
    await g.settle();
    // Still one run: the three wait for the next one, not for the one in flight (it may have read before their cause).
    expect(g.started).toEqual(["shop"]);
    g.release(0);
    await first;
    await g.settle();
    expect(answered).toEqual(["first"]);
    expect(g.started).toEqual(["shop", "shop"]);
    g.release(1);
    await Promise.all(joined);
    expect(answered).toEqual(["first", "joined 1", "joined 2", "joined 3"]);
    // Nothing in flight: the next call runs at once again.
    void call("shop");
    await g.settle();
    expect(g.started).toEqual(["shop", "shop", "shop"]);
    g.release(2);
  });

  it("keeps keys apart", async () => {
    const g = gatedRuns();
    const call = coalescing(g.run);
    void call("a");
    void call("b");
    await g.settle();
    expect(g.started).toEqual(["a", "b"]);
    g.release(0);
    g.release(1);
  });

  it("answers every call a run served with its failure, and runs the next one after a failed one", async () => {
    const g = gatedRuns();
    const call = coalescing(g.run);
    const first = call("shop");
    await g.settle();
    const second = call("shop");
    const third = call("shop");
    g.fail(0, new Error("add_job failed"));
    await expect(first).rejects.toThrow("add_job failed");
    await g.settle();
    expect(g.started).toHaveLength(2);
    g.fail(1, new Error("still down"));
    await expect(second).rejects.toThrow("still down");
    await expect(third).rejects.toThrow("still down");
    const fourth = call("shop");
    await g.settle();
    expect(g.started).toHaveLength(3);
    g.release(2);
    await expect(fourth).resolves.toBeUndefined();
  });
});
