import { mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SessionSigner, operatorToken } from "../src/ops/auth.ts";

const dirs: string[] = [];
async function dataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "ops-token-"));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("the operator token", () => {
  it("is generated once under DATA_DIR (mode 0600) and read back on later starts", async () => {
    const dir = await dataDir();
    const first = await operatorToken(undefined, dir);
    expect(first.created).toBe(true);
    expect(first.token.length).toBeGreaterThanOrEqual(32);
    expect((await stat(path.join(dir, "operator-token"))).mode & 0o777).toBe(0o600);
    expect(await operatorToken(undefined, dir)).toEqual({ token: first.token, created: false });
  });

  it("is the same for processes starting at once: one generates it, the others read it whole", async () => {
    const dir = await dataDir();
    const starts = await Promise.all(Array.from({ length: 8 }, () => operatorToken(undefined, dir)));
    expect(starts.filter((s) => s.created)).toHaveLength(1);
    expect(new Set(starts.map((s) => s.token)).size).toBe(1);
    expect((await readFile(path.join(dir, "operator-token"), "utf8")).trim()).toBe(starts[0]?.token);
    // Nothing left beside it.
    expect(await readdir(dir)).toEqual(["operator-token"]);
  });

  it("is generated on a filesystem without hard links too (an exclusive create instead)", async () => {
    const dir = await dataDir();
    const link = vi.spyOn(fs, "link").mockRejectedValue(Object.assign(new Error("EPERM: operation not permitted, link"), { code: "EPERM" }));
    try {
      const starts = await Promise.all(Array.from({ length: 4 }, () => operatorToken(undefined, dir)));
      expect(link).toHaveBeenCalled();
      expect(starts.filter((s) => s.created)).toHaveLength(1);
      expect(new Set(starts.map((s) => s.token)).size).toBe(1);
    } finally {
      link.mockRestore();
    }
    expect(await readdir(dir)).toEqual(["operator-token"]);
    expect((await stat(path.join(dir, "operator-token"))).mode & 0o777).toBe(0o600);
  });

  it("refuses to start on a token file that is empty or too short, instead of signing sessions with a public key", async () => {
    const dir = await dataDir();
    const file = path.join(dir, "operator-token");
    for (const content of ["", "  \n", "short\n"]) {
      await writeFile(file, content);
      await expect(operatorToken(undefined, dir)).rejects.toThrow(/holds no usable operator token/);
    }
    expect(() => new SessionSigner("")).toThrow(/too short/);
  });

  it("takes OPERATOR_TOKEN over the file", async () => {
    const dir = await dataDir();
    expect(await operatorToken("an-operator-token-of-some-length", dir)).toEqual({ token: "an-operator-token-of-some-length", created: false });
  });
});
