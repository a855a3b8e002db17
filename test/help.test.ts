import { describe, expect, it } from "vitest";
import { ACTIONS } from "../src/action-registry.ts";
import { api } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

interface Entry {
  name: string;
  method: string;
  path: string;
  description: string;
  aliases: string[];
  path_params: string[];
  request_schema: Record<string, unknown>;
  cost: number;
  async: boolean;
}

interface Manifest {
  version: string;
  base_path: string;
  actions: Entry[];
}

const env = useTestEnv();

async function manifest(path: string): Promise<Manifest> {
  const answer = await api(env.app, "GET", path, { key: env.key });
  expect(answer.status).toBe(200);
  return answer.body as Manifest;
}

const paths = (m: Manifest) => m.actions.map((a) => `${a.method} ${a.path}`).sort();

describe("GET /help", () => {
  it("lists every registered action with its fields", async () => {
    const m = await manifest("/help");
    expect(Object.keys(m).sort()).toEqual(["actions", "base_path", "version"]);
    expect(m.version).toBe("2.0.0-beta");
    expect(m.base_path).toBe("/api/v2/external");
    expect(m.actions.map((a) => a.name).sort()).toEqual(ACTIONS.map((a) => a.name).sort());
    for (const entry of m.actions) {
      expect(Object.keys(entry).sort()).toEqual(
        ["aliases", "async", "cost", "description", "method", "name", "notes", "path", "path_params", "request_schema", "response_schema"].sort(),
      );
      expect(entry.description.length).toBeGreaterThan(10);
      expect(entry.path.startsWith("/")).toBe(true);
      expect(entry.request_schema).toMatchObject({ type: "object" });
      expect(entry.request_schema).not.toHaveProperty("$schema");
      expect(typeof entry.async).toBe("boolean");
    }
  });

  it("gives cost by kind, path params and aliases", async () => {
    const m = await manifest("/help");
    const byName = new Map(m.actions.map((a) => [a.name, a]));
    expect(byName.get("account.languages.get")).toMatchObject({ method: "GET", path: "/account/languages", cost: 1, path_params: [], async: false });
    expect(byName.get("account.languages.update")).toMatchObject({ method: "PATCH", cost: 2 });
    expect(byName.get("back_in_stock.templates.get")).toMatchObject({
      path: "/back_in_stock/templates/{stage}/{locale}",
      path_params: ["stage", "locale"],
      cost: 1,
    });
    expect(byName.get("jobs.get")).toMatchObject({ path: "/jobs/{job_id}", path_params: ["job_id"] });
    expect(byName.get("help")).toMatchObject({ path: "/help", cost: 1 });
  });

  it("generates request_schema from the zod schema that validates the request", async () => {
    const m = await manifest("/help");
    const patch = m.actions.find((a) => a.method === "PATCH" && a.path === "/account/languages");
    expect(patch?.request_schema).toMatchObject({
      type: "object",
      additionalProperties: false,
      properties: {
        app_locale: { type: "string" },
        multi_language_enabled: { type: "boolean" },
        product_translations_enabled: { type: "boolean" },
      },
    });
    expect(Object.keys(patch?.request_schema.properties ?? {}).sort()).toEqual([
      "app_locale",
      "multi_language_enabled",
      "product_translations_enabled",
    ]);
    expect(patch?.request_schema.required).toBeUndefined();

    const templates = m.actions.find((a) => a.method === "PATCH" && a.path === "/back_in_stock/templates/{stage}/{locale}");
    expect(templates?.request_schema).toMatchObject({
      additionalProperties: false,
      properties: {
        enabled: { type: "boolean" },
        email: { type: "object", additionalProperties: false, properties: { subject: { type: "string" }, body: { type: "string" } } },
        sms: { type: "object", additionalProperties: false, properties: { body: { type: "string" } } },
      },
    });

    const markets = m.actions.find((a) => a.path === "/account/markets");
    expect(markets?.request_schema).toMatchObject({
      additionalProperties: false,
      properties: { include_inactive: { type: "string", enum: ["true", "false"] } },
    });
  });

  it("narrows with ?prefix", async () => {
    const all = await manifest("/help");
    const account = await manifest("/help?prefix=/account");
    expect(account.actions.length).toBeGreaterThan(0);
    expect(account.actions.length).toBeLessThan(all.actions.length);
    expect(paths(account)).toEqual(paths(all).filter((p) => p.split(" ")[1]?.startsWith("/account/")));
    expect(paths(account)).toEqual(
      expect.arrayContaining(["GET /account/languages", "GET /account/locations", "GET /account/markets", "PATCH /account/languages"]),
    );
    expect(account.version).toBe("2.0.0-beta");
    expect(account.base_path).toBe("/api/v2/external");
    expect(paths(await manifest("/help?prefix=/account/"))).toEqual(paths(account));
  });

  it("narrows by whole segments, not by string prefix", async () => {
    expect((await manifest("/help?prefix=/acc")).actions).toEqual([]);
    expect(paths(await manifest("/help?prefix=/account/languages"))).toEqual(
      expect.arrayContaining(["GET /account/languages", "PATCH /account/languages"]),
    );
    for (const path of paths(await manifest("/help?prefix=/account/languages"))) expect(path).toMatch(/^[A-Z]+ \/account\/languages(\/|$)/);
  });

  it("narrows with GET <scope>/help at any level", async () => {
    const account = await manifest("/help?prefix=/account");
    expect(await manifest("/account/help")).toEqual(account);
    const templates = await manifest("/back_in_stock/templates/help");
    expect(templates).toEqual(await manifest("/help?prefix=/back_in_stock/templates"));
    expect(paths(templates)).toEqual(
      expect.arrayContaining(["GET /back_in_stock/templates/{stage}/{locale}", "PATCH /back_in_stock/templates/{stage}/{locale}"]),
    );
    for (const path of paths(templates)) expect(path).toMatch(/^[A-Z]+ \/back_in_stock\/templates\//);
    expect(await manifest("/back_in_stock/help")).toEqual(await manifest("/help?prefix=/back_in_stock"));
    expect(await manifest("/account/languages/help")).toEqual(await manifest("/help?prefix=/account/languages"));
  });

  it("answers help even where a path parameter could take the word help", async () => {
    const jobs = await manifest("/jobs/help");
    expect(jobs).toEqual(await manifest("/help?prefix=/jobs"));
    expect(paths(jobs)).toContain("GET /jobs/{job_id}");
  });

  it("answers an empty list for a prefix nothing lives under", async () => {
    const none = await manifest("/help?prefix=/nope");
    expect(none).toEqual({ version: "2.0.0-beta", base_path: "/api/v2/external", actions: [] });
    expect(await manifest("/nope/help")).toEqual(none);
  });

  it("validates its own query", async () => {
    const bad = await api(env.app, "GET", "/help?prefix=nope", { key: env.key });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ errors: ["prefix must be a path prefix such as /preorders/offers"] });
    const unknown = await api(env.app, "GET", "/help?verbose=1", { key: env.key });
    expect(unknown.body).toEqual({ errors: ["verbose is not allowed"] });
  });

  it("answers name, method, path and a one-line description only with ?format=compact, narrowed like the full form", async () => {
    const full = await manifest("/help");
    const compact = await manifest("/help?format=compact");
    expect(compact.actions.map((a) => a.name)).toEqual(full.actions.map((a) => a.name));
    for (const entry of compact.actions) {
      expect(Object.keys(entry).sort()).toEqual(["description", "method", "name", "path"]);
      expect(entry.description).not.toMatch(/\n/);
      expect(entry.description.length).toBeLessThanOrEqual(160);
      expect(entry.description.length).toBeGreaterThan(10);
    }
    expect(JSON.stringify(compact).length).toBeLessThan(JSON.stringify(full).length / 10);
    const languages = compact.actions.find((a) => a.name === "account.languages.update");
    expect(languages).toEqual({ name: "account.languages.update", method: "PATCH", path: "/account/languages", description: "Changes language settings." });
    expect(await manifest("/account/help?format=compact")).toEqual(await manifest("/help?prefix=/account&format=compact"));
    const bad = await api(env.app, "GET", "/help?format=short", { key: env.key });
    expect(bad.body).toEqual({ errors: ["format must be one of: full, compact"] });
  });

  it("needs a key like every v2 action", async () => {
    const answer = await api(env.app, "GET", "/help");
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ errors: ["X-Auth-Token is missing or invalid"] });
  });
});
