import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createRegistry } from "../src/action-registry.ts";
import { Manifest, type ManifestEntry } from "../src/core/manifest.ts";
import { type ApiAnswer, api } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { createOffer } from "./helpers/offers.ts";

/**
 * Every action, walked from the registry's manifest (what GET /help lists, with each request
 * schema), is sent malformed dates, integers and ids in each of its query or body fields, in each
 * path parameter, and a JSON `null` (and other non-object) body: a refusal is a 4xx, never a 500.
 * CHECK_RESPONSES is on (test/helpers/app.ts), so an answer its schema does not describe is a 500 too.
 */

// An impossible calendar date must be refused, not rolled over into March.
const BAD_TEXT = ["x", "2026-02-30", "2026-02-30T00:00:00Z", "2026-13-01", "1.5", "abc", "99999999999999999999", "9999999999999999999", "-1", "0", "", "1e3", "gid://shopify/Product/99999999999999999999", "00000000-0000-0000-0000-00000000000g"];
// Only JSON carries these: a fraction, a number past any column's range (1e20), a negative, null.
const BAD_JSON: unknown[] = [1.5, 1e20, -1, null, [], {}];
const BAD_BODIES = ["null", "[]", '"x"', "1", "true"];
const BAD_IDS = ["x", "1.5", "abc", "99999999999999999999", "9999999999999999999", "-1", "0", "2026-02-30", "gid%3A%2F%2Fplatform%2FProduct%2F1.5", "00000000-0000-0000-0000-00000000000g", "%20"];
// With these set to a valid bound, the other bound (or any field) is the only thing wrong.
const PERIOD_FIELDS = new Set(["from", "to", "created_from", "created_to"]);
const NESTING = 3;

const manifest = new Manifest(createRegistry().actions).document();

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

/** Dotted paths of the schema's fields, objects' own fields down to NESTING levels. */
function fieldPaths(schema: JsonSchema, prefix: string[] = []): string[][] {
  const variants = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  const paths: string[][] = [];
  for (const variant of variants) {
    for (const [name, field] of Object.entries(variant.properties ?? {})) {
      const path = [...prefix, name];
      paths.push(path);
      if (path.length < NESTING) paths.push(...fieldPaths(field, path));
    }
  }
  const seen = new Set<string>();
  return paths.filter((path) => !seen.has(path.join(".")) && Boolean(seen.add(path.join("."))));
}

function withField(base: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const [head, ...rest] = path;
  if (head === undefined) return base;
  const inner = base[head];
  const nested = typeof inner === "object" && inner !== null && !Array.isArray(inner) ? (inner as Record<string, unknown>) : {};
  return { ...base, [head]: rest.length === 0 ? value : withField(nested, rest, value) };
}

function periodBase(schema: JsonSchema): Record<string, unknown> {
  const base: Record<string, unknown> = {};
  for (const name of Object.keys(schema.properties ?? {})) if (PERIOD_FIELDS.has(name)) base[name] = "2026-01-01";
  return base;
}

function queryString(values: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (Array.isArray(value)) for (const item of value) search.append(name, String(item));
    else search.append(name, typeof value === "string" ? value : JSON.stringify(value));
  }
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}

interface Probe {
  path: string;
  query?: Record<string, unknown>;
  rawBody?: string;
}

/** The requests that probe one action: its path parameters, then its fields, then its body as a whole. */
function probes(action: ManifestEntry, validPath: string): Probe[] {
  const list: Probe[] = [];
  for (const param of action.path_params) {
    for (const bad of BAD_IDS) list.push({ path: validPath.replace(encodeURIComponent(`{${param}}`), bad).replace(`{${param}}`, bad) });
  }
  const schema = action.request_schema as JsonSchema;
  const period = periodBase(schema);
  // The second pass only where there are bounds to set: elsewhere it would repeat the first.
  const bases = Object.keys(period).length > 0 ? [{}, period] : [{}];
  const isQuery = action.method === "GET" || action.method === "DELETE";
  for (const base of bases) {
    for (const field of fieldPaths(schema)) {
      if (isQuery) {
        if (field.length > 1) continue;
        for (const bad of BAD_TEXT) list.push({ path: validPath, query: withField(base, field, bad) });
        list.push({ path: validPath, query: withField(base, field, ["x", "1.5"]) });
      } else {
        for (const bad of [...BAD_TEXT, ...BAD_JSON]) list.push({ path: validPath, rawBody: JSON.stringify(withField(base, field, bad)) });
      }
    }
  }
  if (isQuery) list.push({ path: validPath, query: { not_a_field: "1.5" } });
  else for (const rawBody of BAD_BODIES) list.push({ path: validPath, rawBody });
  return list;
}

const env = useTestEnv({ config: { RATE_LIMIT_POINTS: "1000000" } });

/** The path with its parameters given values that can exist: the shop's offer for offers, a fresh id elsewhere. */
function validPathOf(action: ManifestEntry, offerId: string): string {
  return action.path
    .replace(/^\/preorders\/offers\/\{id\}/, `/preorders/offers/${offerId}`)
    .replace("{locale}", "en")
    .replace("{stage}", "restock")
    .replace(/\{[a-z_]+\}/g, () => randomUUID());
}

function expectErrors(answer: ApiAnswer, errors: string[]): void {
  expect({ status: answer.status, body: answer.body }).toEqual({ status: 422, body: { errors } });
}

describe("the answers fuzzing found as 500s", () => {
  const DATE = "must be an ISO 8601 date or timestamp";

  it("refuses a malformed to beside a valid from on back-in-stock orders", async () => {
    expectErrors(await api(env.app, "GET", "/back_in_stock/orders?from=2026-01-01&to=x", { key: env.key }), [`to ${DATE}`]);
    expectErrors(await api(env.app, "GET", "/back_in_stock/orders?from=x&to=2026-01-01", { key: env.key }), [`from ${DATE}`]);
  });

  it("refuses an impossible calendar date instead of rolling it over", async () => {
    expectErrors(await api(env.app, "GET", "/back_in_stock/orders?from=2026-02-30&to=2026-03-31", { key: env.key }), [`from ${DATE}`]);
    expectErrors(await api(env.app, "GET", "/back_in_stock/orders?from=2026-02-30", { key: env.key }), [`from ${DATE}`]);
    expectErrors(await api(env.app, "GET", "/back_in_stock/orders?to=2026-02-30T10:00:00Z", { key: env.key }), [`to ${DATE}`]);
  });

  it("still says to must be after from, beside other wrong fields", async () => {
    expectErrors(await api(env.app, "GET", "/back_in_stock/orders?from=2026-03-01&to=2026-02-01&per_page=x", { key: env.key }), ["per_page must be an integer", "to must be after from"]);
  });

  it.each(["/back_in_stock/copilot", "/back_in_stock/reports/products_in_demand"])("reads limit on %s as every query integer is read (digits only)", async (path) => {
    for (const limit of ["1e1", "0x10", "%205", "1.0"]) expectErrors(await api(env.app, "GET", `${path}?limit=${limit}`, { key: env.key }), ["limit must be an integer"]);
  });

  it.each(["balance_collection", "by_offer"])("refuses a null JSON body on the %s export", async (report) => {
    const answer = await api(env.app, "POST", `/preorders/reports/${report}/export`, { key: env.key, rawBody: "null" });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ errors: [expect.stringMatching(/must be an object/)] });
  });
});

describe("malformed input never answers 500", () => {
  let offerId: string | undefined;
  const offer = async (): Promise<string> => (offerId ??= (await createOffer(env.app, env.key)).id);

  it("walks every registered action", () => {
    expect(manifest.actions.length).toBeGreaterThan(100);
  });

  it.each(manifest.actions.map((action) => [`${action.method} ${action.path}`, action] as const))("%s", async (_, action) => {
    const failures: { probe: Probe; answer: Pick<ApiAnswer, "status" | "body"> }[] = [];
    const list = probes(action, validPathOf(action, await offer()));
    for (const probe of list) {
      const answer = await api(env.app, action.method, `${probe.path}${queryString(probe.query ?? {})}`, {
        key: env.key,
        ...(probe.rawBody !== undefined ? { rawBody: probe.rawBody } : {}),
      });
      if (answer.status >= 500) failures.push({ probe, answer: { status: answer.status, body: answer.body } });
    }
    expect(list.length).toBeGreaterThan(0);
    expect(failures).toEqual([]);
  });
});
