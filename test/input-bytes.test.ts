import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { type ApiAnswer, api } from "./helpers/app.ts";
import { createOffer } from "./helpers/offers.ts";
import { useTestEnv } from "./helpers/fixture.ts";

/**
 * Text PostgreSQL cannot store (NUL, lone UTF-16 surrogates) is refused as 422 naming the field,
 * for every transport, before it reaches a query; whitespace-only names are refused as blank.
 */

const BAD = "must not contain NUL bytes or unpaired surrogates";

const env = useTestEnv();

function expectErrors(answer: ApiAnswer, status: number, errors: string[]): void {
  expect({ status: answer.status, body: answer.body }).toEqual({ status, body: { errors } });
}

async function offerCount(): Promise<number> {
  const { rows } = await env.app.pool.query<{ n: number }>("select count(*)::int as n from preorder_offers");
  return rows[0]?.n ?? 0;
}

describe("NUL bytes and unpaired surrogates in a JSON body", () => {
  it("refuses a NUL in a top-level text field of a write, and writes nothing", async () => {
    const before = await offerCount();
    expectErrors(await api(env.app, "POST", "/preorders/offers", { key: env.key, body: { name: "a\u0000b" } }), 422, [`name ${BAD}`]);
    expect(await offerCount()).toBe(before);
  });

  it("names nested fields and array items by their dotted path, one message each", async () => {
    const answer = await api(env.app, "POST", "/preorders/offers", {
      key: env.key,
      body: { name: "ok", widget: { button: { text: "x\u0000" } }, checkout: { order_tags: { tags: ["fine", "b\u0000d"] } } },
    });
    expectErrors(answer, 422, [`widget.button.text ${BAD}`, `checkout.order_tags.tags.1 ${BAD}`]);
  });

  it("reports other fields' validation errors beside it", async () => {
    const answer = await api(env.app, "POST", "/preorders/offers", { key: env.key, body: { name: "\u0000", status: "x" } });
    expectErrors(answer, 422, [`name ${BAD}`, "status is not allowed"]);
  });

  it("refuses a NUL in an object key: a record's key, and an unknown key of a strict object", async () => {
    const offer = await createOffer(env.app, env.key);
    const record = await api(env.app, "PATCH", `/preorders/offers/${offer.id}/translations`, {
      key: env.key,
      body: { locales: ["fr"], translations: { "f\u0000r": { "widget.button.text": "Précommander" } } },
    });
    // the key is named with its NUL written out, so that the answer carries none
    expectErrors(record, 422, [`translations.f\\u0000r ${BAD}`]);
    const strict = await api(env.app, "POST", "/preorders/offers", { key: env.key, body: { name: "ok", "na\u0000me": "x" } });
    expectErrors(strict, 422, [`na\\u0000me ${BAD}`]);
  });

  it("refuses lone surrogates sent as JSON escapes in the raw body text", async () => {
    const offer = await createOffer(env.app, env.key);
    const high = await api(env.app, "PATCH", `/preorders/offers/${offer.id}/widget`, { key: env.key, rawBody: String.raw`{"button":{"text":"a\ud800"}}` });
    expectErrors(high, 422, [`button.text ${BAD}`]);
    const low = await api(env.app, "POST", "/preorders/offers", { key: env.key, rawBody: String.raw`{"name":"\udc00x"}` });
    expectErrors(low, 422, [`name ${BAD}`]);
    const key_ = await api(env.app, "POST", "/preorders/offers", { key: env.key, rawBody: String.raw`{"name":"ok","\ud800":1}` });
    expectErrors(key_, 422, [`\\ud800 ${BAD}`]);
  });

  it("walks a deeply nested body without running out of stack", async () => {
    const depth = 100_000;
    const rawBody = `{"name":${"[".repeat(depth)}"\\u0000"${"]".repeat(depth)}}`;
    expectErrors(await api(env.app, "POST", "/preorders/offers", { key: env.key, rawBody }), 422, ["name must be a string"]);
  });

  it("accepts a well-formed surrogate pair (an emoji)", async () => {
    const answer = await api(env.app, "POST", "/preorders/offers", { key: env.key, rawBody: String.raw`{"name":"Drop \ud83d\ude80"}` });
    expect(answer.status).toBe(202);
    expect((answer.body as { name: string }).name).toBe("Drop 🚀");
  });
});

describe("NUL bytes in query strings and path parameters", () => {
  it("refuses a NUL in the filters of GET /back_in_stock/signups", async () => {
    expectErrors(await api(env.app, "GET", "/back_in_stock/signups?contact=%00", { key: env.key }), 422, [`contact ${BAD}`]);
    const email = await api(env.app, "GET", "/back_in_stock/signups?email=%00", { key: env.key });
    expectErrors(email, 422, [`email ${BAD}`]);
  });

  it("refuses a NUL in a query filter of another GET action", async () => {
    expectErrors(await api(env.app, "GET", "/preorders/orders?email=a%00b", { key: env.key }), 422, [`email ${BAD}`]);
  });

  it("never answers 500 for a NUL or an undecodable surrogate in a path parameter", async () => {
    expectErrors(await api(env.app, "GET", "/preorders/offers/%00", { key: env.key }), 422, [`id ${BAD}`]);
    expectErrors(await api(env.app, "GET", "/preorders/orders/%00", { key: env.key }), 422, [`id ${BAD}`]);
    // UTF-8 of a lone surrogate is not valid percent-encoding: refused before routing (400)
    const surrogate = await api(env.app, "GET", "/preorders/offers/%ED%A0%80", { key: env.key });
    expect(surrogate.status).toBeLessThan(500);
    expect(surrogate.body).toEqual({ errors: [expect.any(String)] });
  });
});

describe("other transports", () => {
  it("MCP: a NUL in a tool's argument is a tool error naming the field", async () => {
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${env.app.origin}/api/v2/external/mcp?toolsets=all`), { requestInit: { headers: { "X-Auth-Token": env.key } } }));
    try {
      const created = await client.callTool({ name: "preorders_offers_create", arguments: { name: "a\u0000b" } });
      expect(created.isError).toBe(true);
      expect(created.content).toEqual([{ type: "text", text: `422: name ${BAD}` }]);
      const path = await client.callTool({ name: "preorders_offers_get", arguments: { id: "\u0000" } });
      expect(path.content).toEqual([{ type: "text", text: `422: id ${BAD}` }]);
      const surrogate = await client.callTool({ name: "preorders_offers_get", arguments: { id: "\ud800" } });
      expect(surrogate.content).toEqual([{ type: "text", text: `422: id ${BAD}` }]);
    } finally {
      await client.close();
    }
  });

  it("v1: a NUL is a 422 in v1's envelope, under the v1 field", async () => {
    const response = await fetch(`${env.app.origin}/api/v1/external/preorders`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-auth-token": env.key },
      body: JSON.stringify({ selling_plan: { name: "Summer", terms_text: "a\u0000" } }),
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ errors: { terms_text: [BAD] } });
  });
});

describe("whitespace-only names", () => {
  it("refuses a blank offer name on create and on rename", async () => {
    expectErrors(await api(env.app, "POST", "/preorders/offers", { key: env.key, body: { name: "   " } }), 422, ["name must not be blank"]);
    expectErrors(await api(env.app, "POST", "/preorders/offers", { key: env.key, body: { name: "\t\n\u00a0" } }), 422, ["name must not be blank"]);
    const offer = await createOffer(env.app, env.key, { name: "Kept" });
    expectErrors(await api(env.app, "PATCH", `/preorders/offers/${offer.id}`, { key: env.key, body: { name: "  " } }), 422, ["name must not be blank"]);
    const renamed = await api(env.app, "PATCH", `/preorders/offers/${offer.id}`, { key: env.key, body: { name: " Kept too " } });
    expect(renamed.status).toBe(202);
    // internal_name stays optional text: blank is allowed, as before
    const internal = await api(env.app, "PATCH", `/preorders/offers/${offer.id}`, { key: env.key, body: { internal_name: "  " } });
    expect(internal.status).toBe(202);
  });

  it("refuses a blank v1 selling plan name in v1's envelope", async () => {
    const response = await fetch(`${env.app.origin}/api/v1/external/preorders`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-auth-token": env.key },
      body: JSON.stringify({ selling_plan: { name: "   " } }),
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ errors: { name: ["must not be blank"] } });
  });

  it("refuses a blank template subject or body", async () => {
    const answer = await api(env.app, "PATCH", "/back_in_stock/templates/initial/en", { key: env.key, body: { email: { subject: " ", body: "\n" }, sms: { body: "  " } } });
    expectErrors(answer, 422, ["email.subject must not be blank", "email.body must not be blank", "sms.body must not be blank"]);
  });
});
