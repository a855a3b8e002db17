import { describe, expect, it } from "vitest";
import { beforeCommit, runBeforeCommitNow, withTransaction } from "../src/core/db.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv({ app: false, shop: false });

describe("beforeCommit", () => {
  it("runs a key's hook once, inside the transaction, just before it commits", async () => {
    const ran: string[] = [];
    await withTransaction(env.pool, async (db) => {
      await db.query("create temporary table hook_probe (v text) on commit drop");
      for (let i = 0; i < 3; i++) {
        await beforeCommit(db, "k", async () => {
          ran.push(`k${i}`);
          // Still inside: the transaction's temporary table is there.
          await db.query("insert into hook_probe values ('seen')");
        });
      }
      await beforeCommit(db, "other", async () => void ran.push("other"));
      ran.push("body done");
    });
    expect(ran).toEqual(["body done", "k0", "other"]);
  });

  it("never runs a hook of a transaction that rolls back, and runs at once on a pool", async () => {
    const ran: string[] = [];
    await expect(
      withTransaction(env.pool, async (db) => {
        await beforeCommit(db, "k", async () => void ran.push("rolled back"));
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    await beforeCommit(env.pool, "k", async () => void ran.push("pool"));
    expect(ran).toEqual(["pool"]);
  });

  it("runBeforeCommitNow runs a waiting hook now and answers it; the commit does not run it again", async () => {
    const ran: string[] = [];
    const answer = await withTransaction(env.pool, async (db) => {
      await beforeCommit(db, "k", async () => {
        ran.push("k");
        return 42;
      });
      return runBeforeCommitNow<number>(db, "k");
    });
    expect(answer).toBe(42);
    expect(ran).toEqual(["k"]);
  });
});
