import { randomUUID } from "node:crypto";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAction } from "../src/core/action.ts";
import { createApiKey, revokeApiKey } from "../src/db/api-keys.ts";
import { type ApiAnswer, type TestApp, api, startTestApp } from "./helpers/app.ts";
import { type CustomApp, startCustomApp } from "./helpers/custom-app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const FAKE_SECRET = "sk_live_FAKE0SECRET0d41d8cd98f00b204e98";

const env = useTestEnv();
let smallApp: TestApp;
let custom: CustomApp;
const logLines: string[] = [];

const customActions = [
  defineAction({
    name: "test.bulk",
    method: "POST",
    path: "/test/bulk",
    description: "Validation fixture: a capped list, a required field, an enum and a nested object.",
    kind: "write",
    input: z.strictObject({
      ids: z.array(z.string()).max(3),
      name: z.string(),
      mode: z.enum(["a", "b"]).optional(),
      settings: z.strictObject({ mode: z.enum(["a", "b"]), limit: z.number().int() }).optional(),
    }),
    async handler(_ctx, { input }) {
      return { accepted: input.ids.length };
    },
  }),
  defineAction({
    name: "test.explode",
    method: "GET",
    path: "/test/explode",
    description: "Throws a plain error that carries a secret.",
    kind: "read",
    input: z.strictObject({}),
    async handler() {
      throw new Error(`upstream refused the key ${FAKE_SECRET}`);
    },
  }),
  defineAction({
    name: "test.explode_after_write",
    method: "POST",
    path: "/test/explode_after_write",
    description: "Writes a row, then throws: the transaction must take the row away.",
    kind: "write",
    input: z.strictObject({}),
    async handler(ctx) {
      await ctx.db.query("insert into locations (shop_id, id, name) values ($1, 'rolled-back', 'Rolled back')", [ctx.shopId]);
      throw new Error(`failed after the insert ${FAKE_SECRET}`);
    },
  }),
];

beforeAll(async () => {
  smallApp = await startTestApp(env.db.url, { BODY_LIMIT_BYTES: "1024" });
  const log = pino({ level: "info" }, { write: (line: string) => void logLines.push(line) });
  custom = await startCustomApp(env.db.url, customActions, { log });
});

afterAll(async () => {
  await custom.close();
  await smallApp.close();
});

/** The v2 error envelope, exactly: one key, an array of strings. */
function expectErrors(answer: ApiAnswer, status: number, errors: string[]): void {
  expect({ status: answer.status, body: answer.body }).toEqual({ status, body: { errors } });
}

function expectEnvelope(answer: ApiAnswer): string[] {
  const body = answer.body as { errors: unknown };
  expect(Object.keys(body)).toEqual(["errors"]);
  expect(Array.isArray(body.errors)).toBe(true);
  for (const message of body.errors as unknown[]) expect(typeof message).toBe("string");
  return body.errors as string[];
}

function expectRateLimitHeaders(answer: ApiAnswer): void {
  expect(answer.headers.get("x-ratelimit-limit")).toBe("360");
  expect(answer.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/);
  // A Unix timestamp in seconds: when every point counted now has expired, within two windows (issue 31: it was the seconds left).
  const now = Date.now() / 1000;
  expect(answer.headers.get("x-ratelimit-reset")).toMatch(/^\d{10}$/);
  expect(Number(answer.headers.get("x-ratelimit-reset"))).toBeGreaterThan(now - 1);
  expect(Number(answer.headers.get("x-ratelimit-reset"))).toBeLessThanOrEqual(Math.ceil(now) + 120);
  expect(answer.headers.get("x-request-id")).toMatch(/^[A-Za-z0-9._-]+$/);
}

describe("401", () => {
  const UNAUTHORIZED = ["X-Auth-Token is missing or invalid"];

  it("answers 401 without a key, with a request id and without rate-limit headers", async () => {
    const answer = await api(env.app, "GET", "/account/languages");
    expectErrors(answer, 401, UNAUTHORIZED);
    expect(answer.headers.get("x-request-id")).toBeTruthy();
    expect(answer.headers.get("x-ratelimit-remaining")).toBeNull();
  });

  it("answers 401 for a wrong key, an empty key and a revoked key", async () => {
    expectErrors(await api(env.app, "GET", "/account/languages", { key: "pbk_not-a-real-key" }), 401, UNAUTHORIZED);
    expectErrors(await api(env.app, "GET", "/account/languages", { headers: { "x-auth-token": "   " } }), 401, UNAUTHORIZED);
    const { apiKey } = await createApiKey(env.app.pool, env.shopId);
    expect((await api(env.app, "GET", "/account/languages", { key: apiKey })).status).toBe(200);
    expect(await revokeApiKey(env.app.pool, apiKey)).toBe(true);
    expectErrors(await api(env.app, "GET", "/account/languages", { key: apiKey }), 401, UNAUTHORIZED);
  });

  it("authenticates before routing: an unknown path without a key is 401, not 404", async () => {
    expectErrors(await api(env.app, "GET", "/nope"), 401, UNAUTHORIZED);
  });

  it("accepts Authorization: Bearer KEY, and refuses a wrong bearer", async () => {
    const ok = await api(env.app, "GET", "/account/languages", { headers: { authorization: `Bearer ${env.key}` } });
    expect(ok.status).toBe(200);
    expectRateLimitHeaders(ok);
    const wrong = await api(env.app, "GET", "/account/languages", { headers: { authorization: "Bearer pbk_wrong" } });
    expectErrors(wrong, 401, UNAUTHORIZED);
    const basic = await api(env.app, "GET", "/account/languages", { headers: { authorization: `Basic ${env.key}` } });
    expectErrors(basic, 401, UNAUTHORIZED);
  });
});

describe("404", () => {
  it("names the method and the path relative to the v2 base, and where to look instead", async () => {
    const answer = await api(env.app, "GET", "/nope", { key: env.key });
    expectErrors(answer, 404, ["No v2 action registered for GET /nope: see GET /help?format=compact for every action"]);
    expectRateLimitHeaders(answer);
  });

  it("leaves the query string out of the path, and names a wrong method with the methods the path takes", async () => {
    expectErrors(await api(env.app, "GET", "/nope/deeper?x=1", { key: env.key }), 404, [
      "No v2 action registered for GET /nope/deeper: see GET /help?format=compact for every action",
    ]);
    expectErrors(await api(env.app, "DELETE", "/account/languages", { key: env.key }), 404, [
      "No v2 action registered for DELETE /account/languages: /account/languages takes GET, PATCH (see GET /account/languages/help)",
    ]);
    expectErrors(await api(env.app, "POST", "/account/languages", { key: env.key, body: {} }), 404, [
      "No v2 action registered for POST /account/languages: use PATCH /account/languages (a deep partial: only the fields sent change)",
    ]);
  });

  it("a PUT where the path takes a PATCH says to use the PATCH; an unknown path under a known scope points to that scope's help", async () => {
    const offer = await api(env.app, "POST", "/preorders/offers", { key: env.key, body: { name: "Spring drop" } });
    const id = (offer.body as { id: string }).id;
    expectErrors(await api(env.app, "PUT", `/preorders/offers/${id}/payments`, { key: env.key, body: { discount: { type: "no_discount" } } }), 404, [
      `No v2 action registered for PUT /preorders/offers/${id}/payments: use PATCH /preorders/offers/${id}/payments (a deep partial: only the fields sent change)`,
    ]);
    expectErrors(await api(env.app, "GET", `/preorders/offers/${id}/nope`, { key: env.key }), 404, [
      `No v2 action registered for GET /preorders/offers/${id}/nope: see GET /preorders/offers/${id}/help for the actions under /preorders/offers/${id}`,
    ]);
    // What the message points to answers: the scope's help lists the offer's actions.
    const help = await api(env.app, "GET", `/preorders/offers/${id}/help?format=compact`, { key: env.key });
    expect(help.status).toBe(200);
    expect((help.body as { actions: { method: string; path: string }[] }).actions).toContainEqual(
      expect.objectContaining({ method: "PATCH", path: "/preorders/offers/{id}/payments" }),
    );
  });

  it("answers the resource form for a registered path whose resource is absent", async () => {
    const id = randomUUID();
    const answer = await api(env.app, "GET", `/jobs/${id}`, { key: env.key });
    expectErrors(answer, 404, [`Job not found: ${id}`]);
    expectRateLimitHeaders(answer);
    expectErrors(await api(env.app, "GET", "/jobs/not-a-uuid", { key: env.key }), 404, ["Job not found: not-a-uuid"]);
  });
});

describe("400", () => {
  it("refuses a missing body like malformed JSON where the action needs one (decision 0195)", async () => {
    // A PATCH always needs one; whitespace is no body.
    const answer = await api(env.app, "PATCH", "/account/languages", { key: env.key });
    expectErrors(answer, 400, ["Request body is not valid JSON"]);
    expectRateLimitHeaders(answer);
    expectErrors(await api(env.app, "PATCH", "/account/languages", { key: env.key, rawBody: "  \n" }), 400, ["Request body is not valid JSON"]);
    // A POST with a required field needs one; its empty object names the field.
    expectErrors(await api(custom, "POST", "/test/bulk", { key: env.key }), 400, ["Request body is not valid JSON"]);
    expectErrors(await api(env.app, "POST", "/preorders/offers", { key: env.key }), 400, ["Request body is not valid JSON"]);
    expectErrors(await api(env.app, "POST", "/preorders/offers", { key: env.key, body: {} }), 422, ["name is required"]);
    // A POST whose fields are all optional runs without one.
    const exported = await api(env.app, "POST", "/preorders/reports/by_offer/export", { key: env.key });
    expect(exported.status).toBe(202);
    expect(exported.body).toMatchObject({ job_id: expect.any(String) as unknown });
  });

  it("refuses a body that is not JSON", async () => {
    const answer = await api(env.app, "PATCH", "/account/languages", { key: env.key, rawBody: "{bad" });
    expectErrors(answer, 400, ["Request body is not valid JSON"]);
    expectRateLimitHeaders(answer);
  });

  it("parses JSON whatever the content type says", async () => {
    const answer = await api(env.app, "PATCH", "/account/languages", {
      key: env.key,
      rawBody: '{"app_locale":"en"}',
      headers: { "content-type": "text/plain" },
    });
    expect(answer.status).toBe(202);
    const bad = await api(env.app, "PATCH", "/account/languages", { key: env.key, rawBody: "{bad", headers: { "content-type": "text/plain" } });
    expectErrors(bad, 400, ["Request body is not valid JSON"]);
  });
});

describe("422", () => {
  it("names a missing field", async () => {
    const answer = await api(custom, "POST", "/test/bulk", { key: env.key, body: { ids: [] } });
    expectErrors(answer, 422, ["name is required"]);
    expectRateLimitHeaders(answer);
  });

  it("lists the allowed values of an enum", async () => {
    expectErrors(await api(custom, "POST", "/test/bulk", { key: env.key, body: { ids: [], name: "n", mode: "c" } }), 422, ["mode must be one of: a, b"]);
    expectErrors(await api(env.app, "GET", "/account/markets?include_inactive=maybe", { key: env.key }), 422, ["include_inactive must be one of: true, false"]);
  });

  it("names the expected type", async () => {
    const answer = await api(env.app, "PATCH", "/account/languages", { key: env.key, body: { multi_language_enabled: "yes" } });
    expectErrors(answer, 422, ["multi_language_enabled must be a boolean"]);
    expectErrors(await api(custom, "POST", "/test/bulk", { key: env.key, body: { ids: "x", name: 5 } }), 422, [
      "ids must be an array",
      "name must be a string",
    ]);
    expectErrors(await api(custom, "POST", "/test/bulk", { key: env.key, body: { ids: [], name: "n", settings: "x" } }), 422, [
      "settings must be an object",
    ]);
    expectErrors(await api(env.app, "PATCH", "/account/languages", { key: env.key, body: [] }), 422, ["body must be an object"]);
  });

  it("refuses an unknown field instead of ignoring it", async () => {
    const answer = await api(env.app, "PATCH", "/account/languages", { key: env.key, body: { app_locale: "en", colour: "blue", size: 1 } });
    expectErrors(answer, 422, ["colour is not allowed", "size is not allowed"]);
    expectErrors(await api(env.app, "GET", "/account/locations?page=2", { key: env.key }), 422, ["page is not allowed"]);
  });

  it("dots nested paths", async () => {
    const answer = await api(env.app, "PATCH", "/back_in_stock/templates/initial/en", { key: env.key, body: { email: { subjekt: "x" } } });
    expectErrors(answer, 422, ["email.subjekt is not allowed"]);
    expectErrors(
      await api(custom, "POST", "/test/bulk", { key: env.key, body: { ids: [], name: "n", settings: { mode: "z", limit: 1.5, extra: true } } }),
      422,
      ["settings.mode must be one of: a, b", "settings.limit must be an integer", "settings.extra is not allowed"],
    );
    expectErrors(await api(custom, "POST", "/test/bulk", { key: env.key, body: { ids: ["a", 2], name: "n" } }), 422, ["ids.1 must be a string"]);
  });

  it("names a list cap", async () => {
    const answer = await api(custom, "POST", "/test/bulk", { key: env.key, body: { ids: ["1", "2", "3", "4"], name: "n" } });
    expectErrors(answer, 422, ["ids must contain at most 3 items"]);
    const within = await api(custom, "POST", "/test/bulk", { key: env.key, body: { ids: ["1", "2", "3"], name: "n" } });
    expect(within.status).toBe(202);
    expect(within.body).toEqual({ accepted: 3 });
    expectRateLimitHeaders(within);
  });

  it("gives one string per field, every field at once", async () => {
    const answer = await api(custom, "POST", "/test/bulk", { key: env.key, body: { ids: ["1", "2", "3", "4"], mode: "c", typo: 1 } });
    expect(answer.status).toBe(422);
    expect(expectEnvelope(answer).sort()).toEqual(
      ["ids must contain at most 3 items", "name is required", "mode must be one of: a, b", "typo is not allowed"].sort(),
    );
  });
});

describe("409", () => {
  it("refuses product translations without the read_translations scope, in one line", async () => {
    const on = await api(env.app, "PATCH", "/account/languages", { key: env.key, body: { multi_language_enabled: true } });
    expect(on.status).toBe(202);
    const answer = await api(env.app, "PATCH", "/account/languages", { key: env.key, body: { product_translations_enabled: true } });
    expect(answer.status).toBe(409);
    const errors = expectEnvelope(answer);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("read_translations");
    expect(errors[0]).not.toContain("\n");
    expectRateLimitHeaders(answer);
    const after = await api(env.app, "GET", "/account/languages", { key: env.key });
    expect(after.body).toMatchObject({ product_translations_enabled: false });
  });
});

describe("413", () => {
  it("refuses a body over the limit", async () => {
    const body = { app_locale: "en", padding: "x".repeat(2000) };
    expectErrors(await api(smallApp, "PATCH", "/account/languages", { key: env.key, body }), 413, ["Request body is larger than 1024 bytes"]);
    expectErrors(await api(smallApp, "PATCH", "/account/languages", { body }), 413, ["Request body is larger than 1024 bytes"]);
  });

  it("accepts a body just under the limit on the same server", async () => {
    const answer = await api(smallApp, "PATCH", "/account/languages", { key: env.key, body: { app_locale: "en" } });
    expect(answer.status).toBe(202);
  });
});

describe("500", () => {
  it("answers a generic message with the request id, logs it, and leaks neither stack nor secret", async () => {
    const answer = await api(custom, "GET", "/test/explode", { key: env.key });
    expect(answer.status).toBe(500);
    const requestId = answer.headers.get("x-request-id");
    expect(requestId).toMatch(/^[A-Za-z0-9._-]+$/);
    expect(answer.body).toEqual({ errors: [`Internal server error (request id ${requestId ?? ""})`] });
    const text = JSON.stringify(answer.body);
    expect(text).not.toContain(FAKE_SECRET);
    expect(text).not.toContain("upstream refused");
    expect(text).not.toMatch(/\bat .+\.ts:\d+/);
    expectRateLimitHeaders(answer);
    const logged = logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((l) => l.requestId === requestId);
    expect(logged.map((l) => l.msg)).toContain("action failed");
  });

  it("uses a well-formed X-Request-Id the client sent", async () => {
    const answer = await api(custom, "GET", "/test/explode", { key: env.key, headers: { "x-request-id": "trace-42.a_b" } });
    expect(answer.headers.get("x-request-id")).toBe("trace-42.a_b");
    expectErrors(answer, 500, ["Internal server error (request id trace-42.a_b)"]);
    const other = await api(custom, "GET", "/test/explode", { key: env.key, headers: { "x-request-id": "bad id with spaces" } });
    expect(other.headers.get("x-request-id")).not.toBe("bad id with spaces");
    expectErrors(other, 500, [`Internal server error (request id ${other.headers.get("x-request-id") ?? ""})`]);
  });

  it("rolls back the write of an action that throws", async () => {
    const answer = await api(custom, "POST", "/test/explode_after_write", { key: env.key, body: {} });
    expect(answer.status).toBe(500);
    expect(JSON.stringify(answer.body)).not.toContain(FAKE_SECRET);
    const { rows } = await env.app.pool.query("select 1 from locations where shop_id = $1 and id = 'rolled-back'", [env.shopId]);
    expect(rows).toHaveLength(0);
  });
});

describe("headers on every answer after authentication", () => {
  it("carries the rate-limit headers and a request id on 2xx and 4xx alike, counting down by cost", async () => {
    const { apiKey: fresh } = await createApiKey(env.app.pool, env.shopId);
    const calls: [string, string, { body?: unknown }, number][] = [
      ["GET", "/account/languages", {}, 1],
      ["PATCH", "/account/languages", { body: { app_locale: "en" } }, 2],
      ["GET", "/nope", {}, 1],
      ["PATCH", "/account/languages", { body: { nope: 1 } }, 2],
      ["GET", "/help", {}, 1],
    ];
    const answers: ApiAnswer[] = [];
    for (const [method, path, options] of calls) answers.push(await api(env.app, method, path, { key: fresh, ...options }));
    expect(answers.map((a) => a.status)).toEqual([200, 202, 404, 422, 200]);
    for (const answer of answers) expectRateLimitHeaders(answer);
    const remaining = answers.map((a) => Number(a.headers.get("x-ratelimit-remaining")));
    expect(remaining[0]).toBe(359);
    // Each answer is the previous remaining less its cost, or a fresh window less its cost if one began in between.
    calls.forEach(([, , , cost], i) => {
      if (i === 0) return;
      expect([(remaining[i - 1] ?? 0) - cost, 360 - cost]).toContain(remaining[i]);
    });
    const ids = new Set(answers.map((a) => a.headers.get("x-request-id")));
    expect(ids.size).toBe(answers.length);
  });
});
