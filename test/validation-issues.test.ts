import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiError, fieldIssue, invalidField, unprocessable } from "../src/core/errors.ts";
import { formatIssues } from "../src/core/validation.ts";
import { type TestApp, api, createShopWithKey, startTestApp } from "./helpers/app.ts";
import { type TestDatabase, createTestDatabase } from "./helpers/db.ts";
import { seedCatalog } from "./helpers/offers.ts";

describe("structured validation issues (unit)", () => {
  it("formatIssues gives one issue per field: dotted path, message without the field", () => {
    const schema = z.strictObject({ name: z.string(), nested: z.strictObject({ count: z.boolean() }) });
    const parsed = schema.safeParse({ nested: { count: "x", "odd key.x": 1 } }, { reportInput: true });
    expect(parsed.success).toBe(false);
    expect(formatIssues(parsed.error?.issues ?? [])).toEqual([
      { path: "name", message: "is required" },
      { path: "nested.count", message: "must be a boolean" },
      { path: "nested.odd key.x", message: "is not allowed" },
    ]);
    // the body itself has an empty path
    const body = z.strictObject({}).safeParse("text", { reportInput: true });
    expect(formatIssues(body.error?.issues ?? [])).toEqual([{ path: "", message: "must be an object" }]);
  });

  it("a 422 carries its issues; its messages are built from them, `body` for an empty path", () => {
    const error = unprocessable([fieldIssue("name", "must not be blank"), fieldIssue("", "must be an object")]);
    expect(error.code).toBe("UNPROCESSABLE");
    expect(error.messages).toEqual(["name must not be blank", "body must be an object"]);
    expect(error.issues).toEqual([
      { path: "name", message: "must not be blank" },
      { path: "", message: "must be an object" },
    ]);
    expect(invalidField("market_id", "must be one of the shop's markets").messages).toEqual(["market_id must be one of the shop's markets"]);
    // other errors have no issues
    expect(new ApiError("CONFLICT", "no").issues).toEqual([]);
  });
});

describe("issues over the transports", () => {
  let db: TestDatabase;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    app = await startTestApp(db.url);
    let shopId: string;
    ({ apiKey: key, shopId } = await createShopWithKey(app.pool));
    await seedCatalog(app.pool, shopId);
  });

  afterAll(async () => {
    await app.close();
    await db.drop();
  });

  async function v1(body: unknown): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${app.origin}/api/v1/external/preorders`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-auth-token": key },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  it("v1 names a field whose name holds a space or a dot whole, as the issue's path says", async () => {
    const answer = await v1({ selling_plan: { name: "Odd", "colour code": "#fff", "button.text": "Go" } });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ errors: { "colour code": ["is not allowed"], "button.text": ["is not allowed"] } });
  });

  it("v1 files a type error under its own field", async () => {
    const answer = await v1({ selling_plan: { name: "Odd", enabled: "yes" } });
    expect(answer).toEqual({ status: 422, body: { errors: { enabled: ["must be a boolean"] } } });
  });

  it("v2 keeps its messages exactly", async () => {
    const answer = await api(app, "POST", "/preorders/offers", { key, body: { name: "  ", "colour code": 1 } });
    expect(answer).toMatchObject({ status: 422, body: { errors: ["name must not be blank", "colour code is not allowed"] } });
    const rule = await api(app, "POST", "/preorders/offers", { key, body: { name: "R", limits: { per_order: { min: 5, max: 2 } } } });
    expect(rule).toMatchObject({ status: 422, body: { errors: ["limits.per_order.max must be at least per_order.min (5)"] } });
  });
});
