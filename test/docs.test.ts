import { describe, expect, it } from "vitest";
import { ACTIONS } from "../src/actions/index.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv({ shop: false });

async function get(path: string): Promise<{ status: number; type: string; text: string }> {
  const response = await fetch(`${env.app.origin}/api/v2/external${path}`);
  return { status: response.status, type: response.headers.get("content-type") ?? "", text: await response.text() };
}

describe("public documents rendered from the registry", () => {
  it("serves llms.txt without a key, listing every action", async () => {
    const doc = await get("/llms.txt");
    expect(doc.status).toBe(200);
    expect(doc.type).toMatch(/^text\/plain/);
    for (const action of ACTIONS) expect(doc.text).toContain(`\`${action.method} ${action.path}\` (${action.name},`);
  });

  it("serves skill.md with a front matter naming the skill", async () => {
    const doc = await get("/skill.md");
    expect(doc.status).toBe(200);
    expect(doc.text).toMatch(/^---\nname: preorder-back-in-stock-api\ndescription: .+\n---\n/);
  });

  it("serves an OpenAPI 3.1 document with every action as an operation", async () => {
    const doc = await get("/openapi.json");
    const openapi = JSON.parse(doc.text) as { openapi: string; paths: Record<string, Record<string, { operationId: string }>> };
    expect(openapi.openapi).toBe("3.1.0");
    for (const action of ACTIONS) {
      expect(openapi.paths[action.path]?.[action.method.toLowerCase()]?.operationId).toBe(action.name);
    }
  });
});
