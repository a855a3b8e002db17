import { afterAll, describe, expect, it } from "vitest";
import { FairQueue } from "../src/messaging/render/fair-queue.ts";
import { closeRenderPool, setRenderThreads } from "../src/messaging/render/pool.ts";
import { renderFields, templateProblem } from "../src/messaging/render/render.ts";

// The render pool is shared by every shop: a shop with a long batch of sends waiting must not hold
// another shop's sends, nor anyone's template edit, behind all of it.

afterAll(async () => {
  await closeRenderPool();
});

const FIELDS = [{ kind: "text" as const, source: "{% for i in (1..200) %}{{ customer.name | upcase }}{% endfor %}" }];
const people = (n: number, name: string) => Array.from({ length: n }, () => ({ customer: { name } }));
/** A few thousand loop turns: tens of milliseconds a render, far more than FIELDS. */
const SLOW = [{ kind: "text" as const, source: "{% for i in (1..20000) %}{{ customer.name | upcase | append: i }}{% endfor %}" }];

describe("the render pool's queue", () => {
  it("serves another shop's send and a template edit before a busy shop's whole batch", async () => {
    const finished: string[] = [];
    // Shop A: 1,000 recipients, 20 jobs of 50.
    const busy = renderFields(FIELDS, people(1000, "a"), { owner: "shop-a" }).then(() => finished.push("shop A's batch"));
    const other = renderFields(FIELDS, people(1, "b"), { owner: "shop-b" }).then((rows) => {
      finished.push("shop B's send");
      return rows;
    });
    const edit = templateProblem("email.body", FIELDS[0]?.source ?? "", "text", { customer: { name: "c" } }).then((issue) => {
      finished.push("a template edit");
      return issue;
    });
    const [, rows, issue] = await Promise.all([busy, other, edit]);
    expect(rows[0]?.[0]).toBe("B".repeat(200));
    expect(issue).toBeUndefined();
    expect(finished.at(-1)).toBe("shop A's batch");
  });
});

/** A job of `ms` on a fake clock, recording when it starts. */
function job(clock: { at: number }, started: string[], name: string, ms: number): () => Promise<void> {
  return () => {
    started.push(name);
    return new Promise((resolve) =>
      setImmediate(() => {
        clock.at += ms;
        resolve();
      }),
    );
  };
}

describe("the queue's shares between shops", () => {
  it("gives a shop whose jobs are slow no more thread time than one whose jobs are quick", async () => {
    const clock = { at: 0 };
    const queue = new FairQueue(1, () => clock.at);
    const started: string[] = [];
    const all = [
      ...Array.from({ length: 4 }, (_, i) => queue.add({ owner: "slow" }, job(clock, started, `slow ${i + 1}`, 400))),
      ...Array.from({ length: 4 }, (_, i) => queue.add({ owner: "quick" }, job(clock, started, `quick ${i + 1}`, 5))),
    ];
    await Promise.all(all);
    // After one slow job (400 ms), the quick shop runs all of its 20 ms before the slow one's next.
    expect(started).toEqual(["slow 1", "quick 1", "quick 2", "quick 3", "quick 4", "slow 2", "slow 3", "slow 4"]);
  });

  it("puts a shop's edits ahead of its own sends, not of other shops' sends", async () => {
    const clock = { at: 0 };
    const queue = new FairQueue(1, () => clock.at);
    const started: string[] = [];
    const all = [
      queue.add({ owner: "a" }, job(clock, started, "a send", 10)),
      queue.add({ owner: "b" }, job(clock, started, "b send", 10)),
      queue.add({ owner: "a", interactive: true }, job(clock, started, "a edit", 10)),
      queue.add({ owner: "a", priority: 1 }, job(clock, started, "a first message", 10)),
    ];
    await Promise.all(all);
    expect(started).toEqual(["a send", "b send", "a edit", "a first message"]);
  });

  it("brings a shop back from idle level with the least-served busy shop, without credit for its idle time", async () => {
    const clock = { at: 0 };
    const queue = new FairQueue(1, () => clock.at);
    const started: string[] = [];
    await queue.add({ owner: "early" }, job(clock, started, "early 1", 1_000));
    const all = [
      ...Array.from({ length: 3 }, (_, i) => queue.add({ owner: "busy" }, job(clock, started, `busy ${i + 1}`, 100))),
      queue.add({ owner: "early" }, job(clock, started, "early 2", 100)),
    ];
    await Promise.all(all);
    // early's 1,000 ms were used while no one else waited: it does not wait for busy to catch up.
    expect(started.slice(1)).toEqual(["busy 1", "early 2", "busy 2", "busy 3"]);
  });
});

describe("a shop saving a slow template again and again", () => {
  it("does not hold another shop's sends behind its edits", { timeout: 60_000 }, async () => {
    await closeRenderPool();
    setRenderThreads(1);
    try {
      const finished: string[] = [];
      // Six edits of shop A in flight at once (a client saving in parallel), then shop B's alert.
      const edits = Array.from({ length: 6 }, (_, i) =>
        renderFields(SLOW, people(1, "a"), { owner: "shop-a", interactive: true }).then(() => finished.push(`shop A's edit ${i + 1}`)),
      );
      const send = renderFields(FIELDS, people(1, "b"), { owner: "shop-b" }).then(() => finished.push("shop B's send"));
      await Promise.all([...edits, send]);
      // Every edit went ahead of every send before: shop B's alert came last.
      expect(finished.indexOf("shop B's send")).toBeLessThanOrEqual(2);
    } finally {
      await closeRenderPool();
      setRenderThreads(undefined);
    }
  });
});
