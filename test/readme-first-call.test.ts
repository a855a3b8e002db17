import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ACTIONS } from "../src/action-registry.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv();

/** The curl commands of a Markdown file's first sh block that has one, as [header, url] pairs. */
function firstCurls(file: string): { token: string; url: URL }[] {
  const text = readFileSync(file, "utf8");
  const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  const block = blocks.find((b) => b.includes("curl "));
  if (!block) throw new Error(`${file} has no sh block with a curl command`);
  return block
    .split("\n")
    .filter((line) => line.trim().startsWith("curl "))
    .map((line) => {
      const match = /-H "X-Auth-Token: ([^"]+)" "?([^"\s]+)"?/.exec(line);
      if (!match?.[2]) throw new Error(`not a curl of the API: ${line}`);
      return { token: match[1] ?? "", url: new URL(`http://${match[2]}`) };
    });
}

/** The README's (or the article's) command, run against the test service with the test key. */
async function run(call: { url: URL }): Promise<{ status: number; text: string }> {
  const response = await fetch(`${env.app.origin}${call.url.pathname}${call.url.search}`, { headers: { "x-auth-token": env.key } });
  return { status: response.status, text: await response.text() };
}

describe("the first call a newcomer makes", () => {
  for (const file of ["README.md", "docs/help/getting-started.md"]) {
    it(`${file}: the first command is the compact action list, one line per action, a small part of the full help`, async () => {
      const [first] = firstCurls(file);
      expect(first?.url.host).toBe("localhost:3000");
      expect(`${first?.url.pathname}${first?.url.search}`).toBe("/api/v2/external/help?format=compact");
      const compact = await run(first as { url: URL });
      expect(compact.status).toBe(200);
      const body = JSON.parse(compact.text) as { actions: Record<string, unknown>[] };
      expect(body.actions).toHaveLength(ACTIONS.length);
      for (const action of body.actions) expect(Object.keys(action).sort()).toEqual(["description", "method", "name", "path"]);
      const full = await run({ url: new URL("http://localhost:3000/api/v2/external/help") });
      expect(full.status).toBe(200);
      // What the README says of the two: the compact list is tens of KB, the full help hundreds.
      expect(Buffer.byteLength(compact.text)).toBeLessThan(Buffer.byteLength(full.text) / 10);
    });
  }

  it("the README's scope example answers one area's actions in full", async () => {
    const response = await fetch(`${env.app.origin}/api/v2/external/preorders/offers/help`, { headers: { "x-auth-token": env.key } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { actions: { path: string; request_schema: unknown }[] };
    expect(body.actions.length).toBeGreaterThan(0);
    for (const action of body.actions) {
      expect(action.path.startsWith("/preorders/offers")).toBe(true);
      expect(action.request_schema).toBeTypeOf("object");
    }
  });
});
