import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "../src/core/database-unavailable.ts";
import type { Db } from "../src/core/db.ts";
import { DatabaseGate, LeaseLost } from "../src/messaging/ledger/database-gate.ts";

const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
/** A connection that must not be used (the calls here never reach the lease check). */
const noDb: Db = { query: () => Promise.reject(new Error("no query expected")) };
/** A connection whose lease check finds the given rows still leased. */
const leased = (ids: string[]): Db => ({ query: () => Promise.resolve({ rows: ids.map((id) => ({ id })) }) as never });

/** Whether `promise` has settled by the time the event loop has turned a few times. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe("isDatabaseUnavailable", () => {
  it("knows the database going away from a statement it refused", () => {
    expect(isDatabaseUnavailable(refused())).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("the database system is starting up"), { code: "57P03" }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("connection failure"), { code: "08006" }))).toBe(true);
    expect(isDatabaseUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isDatabaseUnavailable(new Error("timeout exceeded when trying to connect"))).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([refused(), refused()], "connect failed"))).toBe(true);
    expect(isDatabaseUnavailable(new Error("wrapped", { cause: refused() }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("duplicate key value"), { code: "23505" }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" }))).toBe(false);
    expect(isDatabaseUnavailable(new Error("boom"))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});

describe("the database gate", () => {
  it("writes a mark again until the database takes it, and no send passes meanwhile", async () => {
    const gate = new DatabaseGate();
    const holder = { pid: 1 };
    const call = gate.call(noDb, "bis_ledger", holder, ["a", "b"]);
    let failures = 2;
    let landed = false;
    const writing = call.write(async () => {
      if (failures > 0) {
        failures -= 1;
        throw refused();
      }
      landed = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(gate.closed).toBe(true);
    // Another call of the same holder (a batch's next chunk) waits too.
    const next = gate.call(leased(["b"]), "bis_ledger", holder, ["b"]).passage("b");
    expect(await settled(next)).toBe(false);
    await writing;
    expect(landed).toBe(true);
    expect(gate.closed).toBe(false);
    // Open again; an outage came since the holder was first seen: only its rows still leased pass.
    await next;
    await expect(gate.call(leased([]), "bis_ledger", holder, ["c"]).passage("c")).rejects.toBeInstanceOf(LeaseLost);
    // A holder first seen after the outage passes without a check.
    await gate.call(noDb, "bis_ledger", { pid: 2 }, ["d"]).passage("d");
  });

  it("stops a call's sends after one of its marks failed for good", async () => {
    const gate = new DatabaseGate();
    const call = gate.call(noDb, "bis_ledger", { pid: 1 }, ["a", "b"]);
    const refusedForGood = Object.assign(new Error("value too long"), { code: "22001" });
    await expect(call.write(() => Promise.reject(refusedForGood))).rejects.toBe(refusedForGood);
    expect(gate.closed).toBe(false);
    await expect(call.passage("b")).rejects.toBe(refusedForGood);
    // Other calls are not concerned.
    await gate.call(noDb, "bis_ledger", { pid: 2 }, ["c"]).passage("c");
  });

  it("gives up on shutdown: the waiting write fails, the waiting sends too", async () => {
    const gate = new DatabaseGate();
    const call = gate.call(noDb, "bis_ledger", { pid: 1 }, ["a", "b"]);
    const writing = call.write(() => Promise.reject(refused()));
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = call.passage("b");
    expect(await settled(waiting)).toBe(false);
    gate.stop();
    await expect(writing).rejects.toThrow(/shutting down/);
    await expect(waiting).rejects.toBeInstanceOf(LeaseLost);
    expect(gate.closed).toBe(false);
  });
});
