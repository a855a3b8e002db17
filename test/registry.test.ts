import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AnyAction, type HttpMethod, defineAction } from "../src/core/action.ts";
import { Registry } from "../src/core/registry.ts";
import { api } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

function action(name: string, path: string, options: { method?: HttpMethod; aliases?: string[] } = {}): AnyAction {
  return defineAction({
    name,
    method: options.method ?? "GET",
    path,
    aliases: options.aliases ?? [],
    description: `fixture ${name}`,
    kind: "read",
    input: z.strictObject({}),
    async handler(_ctx, { params }) {
      return { action: name, params };
    },
  });
}

describe("Registry construction", () => {
  it("accepts distinct names and paths, and the same path under different methods", () => {
    const registry = new Registry([
      action("a.get", "/a/{id}"),
      action("a.update", "/a/{id}", { method: "PATCH" }),
      action("a.list", "/a"),
    ]);
    expect(registry.actions.map((a) => a.name)).toEqual(["a.get", "a.update", "a.list"]);
    expect(registry.get("a.update")?.method).toBe("PATCH");
    expect(registry.get("nope")).toBeUndefined();
  });

  it("throws on a duplicate name", () => {
    expect(() => new Registry([action("a.get", "/a"), action("a.get", "/b")])).toThrow("Duplicate action name: a.get");
  });

  it("throws on a duplicate path, the same shape with other parameter names included", () => {
    expect(() => new Registry([action("one", "/a/b"), action("two", "/a/b")])).toThrow(/Duplicate route GET \/a\/b: one and two/);
    expect(() => new Registry([action("one", "/a/{x}"), action("two", "/a/{y}")])).toThrow(/Duplicate route GET \/a\/\{\}: one and two/);
    expect(() => new Registry([action("one", "/a/{x}/c/{z}"), action("two", "/a/{y}/c/{w}")])).toThrow(/Duplicate route/);
  });

  it("refuses an alias phrase that another action (or the same one) already uses, or that is not a lower-case phrase", () => {
    expect(() => new Registry([action("one", "/a", { aliases: ["list the offers"] }), action("two", "/b", { aliases: ["list the offers"] })])).toThrow(
      'Duplicate alias "list the offers": one and two',
    );
    expect(() => new Registry([action("one", "/a", { aliases: ["show it", "show it"] })])).toThrow('Duplicate alias "show it": one and one');
    expect(() => new Registry([action("one", "/a", { aliases: ["/a/{y}"] })])).toThrow("alias must be a lower-case phrase of words");
    expect(() => new Registry([action("one", "/a", { aliases: ["List Offers"] })])).toThrow("alias must be a lower-case phrase of words");
    expect(() => new Registry([action("one", "/a", { aliases: ["offers"] })])).toThrow("alias must be a lower-case phrase of words");
  });

  it("does not route an alias phrase", () => {
    const registry = new Registry([action("one", "/a", { aliases: ["read the a"] })]);
    expect(registry.match("GET", "/read the a")).toBeUndefined();
    expect(registry.match("GET", "/a")?.action.name).toBe("one");
  });

  it("does not treat a literal and a parameter in the same place as a collision", () => {
    expect(() => new Registry([action("one", "/a/{x}"), action("two", "/a/export")])).not.toThrow();
  });

  it("refuses a malformed name or a path without a leading slash", () => {
    expect(() => new Registry([action("Bad Name", "/a")])).toThrow("Invalid action name: Bad Name");
    expect(() => new Registry([action("ok", "a/b")])).toThrow("path must start with /");
  });
});

describe("Registry matching", () => {
  it("prefers literal segments over parameters, whatever the order of registration", () => {
    const forward = new Registry([action("get", "/offers/{id}"), action("export", "/offers/export")]);
    const backward = new Registry([action("export", "/offers/export"), action("get", "/offers/{id}")]);
    for (const registry of [forward, backward]) {
      expect(registry.match("GET", "/offers/export")?.action.name).toBe("export");
      expect(registry.match("GET", "/offers/42")).toMatchObject({ action: { name: "get" }, params: { id: "42" } });
    }
  });

  it("lets the leftmost literal win between equally literal routes, whatever the order of registration", () => {
    const one = action("one", "/a/{x}/c");
    const two = action("two", "/a/b/{y}");
    for (const registry of [new Registry([one, two]), new Registry([two, one])]) {
      expect(registry.match("GET", "/a/b/c")).toMatchObject({ action: { name: "two" }, params: { y: "c" } });
      expect(registry.match("GET", "/a/z/c")).toMatchObject({ action: { name: "one" }, params: { x: "z" } });
    }
  });

  it("matches method and segment count, and reports the template that matched", () => {
    const registry = new Registry([
      action("stage", "/templates/{stage}/{locale}"),
      action("stage.update", "/templates/{stage}/{locale}", { method: "PATCH" }),
    ]);
    expect(registry.match("GET", "/templates/initial/en")).toEqual({
      action: registry.get("stage"),
      params: { stage: "initial", locale: "en" },
      template: "/templates/{stage}/{locale}",
    });
    expect(registry.match("PATCH", "/templates/initial/en")?.action.name).toBe("stage.update");
    expect(registry.match("DELETE", "/templates/initial/en")).toBeUndefined();
    expect(registry.match("GET", "/templates/initial")).toBeUndefined();
    expect(registry.match("GET", "/templates/initial/en/extra")).toBeUndefined();
    expect(registry.match("GET", "/templates/initial/en/")?.action.name).toBe("stage");
  });

  it("decodes percent-encoded parameters, an encoded slash staying inside its segment", () => {
    const registry = new Registry([action("get", "/things/{id}"), action("export", "/things/export")]);
    expect(registry.match("GET", "/things/hello%20world")?.params).toEqual({ id: "hello world" });
    expect(registry.match("GET", "/things/caf%C3%A9")?.params).toEqual({ id: "café" });
    expect(registry.match("GET", "/things/a%2Fb")?.params).toEqual({ id: "a/b" });
    expect(registry.match("GET", "/things/%65xport")?.action.name).toBe("export");
    expect(registry.match("GET", "/things/%E0%A4%A")).toBeUndefined();
  });
});

describe("over HTTP", () => {
  const env = useTestEnv({ actions: [action("things.get", "/things/{id}"), action("things.export", "/things/export")] });

  it("hands the handler decoded parameters", async () => {
    const answer = await api(env.app, "GET", "/things/caf%C3%A9%20au%20lait", { key: env.key });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ action: "things.get", params: { id: "café au lait" } });
    const slash = await api(env.app, "GET", "/things/a%2Fb", { key: env.key });
    expect(slash.body).toEqual({ action: "things.get", params: { id: "a/b" } });
  });

  it("routes the literal over the parameter", async () => {
    const answer = await api(env.app, "GET", "/things/export", { key: env.key });
    expect(answer.body).toEqual({ action: "things.export", params: {} });
  });

  it("answers 400 in the v2 envelope for a path that is not valid percent-encoding", async () => {
    const answer = await api(env.app, "GET", "/things/%E0%A4%A?x=1", { key: env.key });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ errors: ["Request path is not a valid URL: /api/v2/external/things/%E0%A4%A"] });
    expect(answer.headers.get("x-request-id")).toBeTruthy();
  });
});
