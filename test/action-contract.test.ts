import { isDeepStrictEqual } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { describe, expect, it } from "vitest";
import { ACTIONS } from "../src/action-registry.ts";
import type { AnyAction } from "../src/core/action.ts";
import { responseSchema } from "../src/core/manifest.ts";
import { toolDescription, toolName } from "../src/mcp/tools.ts";
import { COUNTDOWN_MODES, COUNTDOWN_STYLES } from "../src/preorders/offers/actions/countdown.ts";
import { RESERVATION_TIMINGS } from "../src/preorders/offers/groups/inventory.ts";
import { OFFER_STATUSES, PRODUCT_SOURCES } from "../src/preorders/offers/model.ts";
import {
  advancedOutput,
  countdownOutput,
  inventoryOutput,
  offerOutput,
  paymentsOutput,
  productsOutput,
  shippingOutput,
} from "../src/preorders/offers/outputs.ts";
import { BUTTON_TEXT_STATES, DELIVERY_TYPES, DISCOUNT_TYPES, PAYMENT_OPTION_TYPES, SPLIT_TYPES } from "../src/preorders/offers/groups/plan-groups.ts";
import { api } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

/**
 * The action contract (src/core/action.ts) over the service's whole registry: every action says
 * what it answers (an output schema), how an agent may name it (2 to 4 aliases, unique phrases)
 * and, through MCP over HTTP, gives that schema to clients, whose SDK validates real answers
 * against it. Each check lists the actions that break it, so a failure names them all.
 */

const env = useTestEnv();

interface JsonSchema {
  type?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  contentMediaType?: unknown;
}

/** Lower-case words separated by single spaces, at least two words (the registry's own rule). */
const PHRASE = /^[a-z0-9][a-z0-9_'-]*( [a-z0-9][a-z0-9_'-]*)+$/;

function offenders(check: (action: AnyAction) => string | undefined): string[] {
  return ACTIONS.flatMap((action) => {
    const why = check(action);
    return why === undefined ? [] : [`${action.name}: ${why}`];
  });
}

const schemaOf = (action: AnyAction): JsonSchema | null => responseSchema(action) as JsonSchema | null;
const isJsonObject = (action: AnyAction): boolean => schemaOf(action)?.type === "object";

describe("the action contract over the whole registry", () => {
  it("has actions to check", () => {
    expect(ACTIONS.length).toBeGreaterThan(100);
  });

  it("every action declares an output schema", () => {
    expect(offenders((a) => (a.output ? undefined : "no output schema"))).toEqual([]);
  });

  it("every action has 2 to 4 aliases, each a lower-case phrase of words", () => {
    expect(
      offenders((a) => {
        const aliases = a.aliases ?? [];
        if (aliases.length < 2 || aliases.length > 4) return `${String(aliases.length)} aliases`;
        const bad = aliases.filter((phrase) => !PHRASE.test(phrase));
        return bad.length > 0 ? `not a lower-case phrase: ${bad.join(" | ")}` : undefined;
      }),
    ).toEqual([]);
  });

  it("aliases are unique across the registry", () => {
    const owners = new Map<string, string[]>();
    for (const action of ACTIONS) for (const phrase of action.aliases ?? []) owners.set(phrase, [...(owners.get(phrase) ?? []), action.name]);
    const shared = [...owners].filter(([, names]) => names.length > 1).map(([phrase, names]) => `"${phrase}": ${names.join(", ")}`);
    expect(shared).toEqual([]);
  });

  it("every output's JSON Schema is an object, or a file of a declared media type", () => {
    expect(
      offenders((a) => {
        const schema = schemaOf(a);
        if (schema === null) return undefined; // reported by the output schema check
        if (schema.type === "object" || typeof schema.contentMediaType === "string") return undefined;
        return `answers ${JSON.stringify(schema.type ?? "an untyped schema")}`;
      }),
    ).toEqual([]);
  });

  it("every async action answers a job handle (job_id, status_url)", () => {
    const asyncActions = ACTIONS.filter((a) => a.async);
    expect(asyncActions.length).toBeGreaterThan(0);
    expect(
      offenders((a) => {
        if (!a.async) return undefined;
        const schema = schemaOf(a);
        const props = schema?.properties ?? {};
        const required = schema?.required ?? [];
        const handle = props.job_id?.type === "string" && props.status_url?.type === "string" && required.includes("job_id") && required.includes("status_url");
        return handle ? undefined : "its output is not a job handle";
      }),
    ).toEqual([]);
  });
});

describe("the preorder offer outputs state the spec's shapes", () => {
  const schema = (name: string): JsonSchema => {
    const action = ACTIONS.find((a) => a.name === name);
    if (!action) throw new Error(`no action ${name}`);
    return schemaOf(action) ?? {};
  };
  const keys = (s: JsonSchema | undefined): string[] => Object.keys(s?.properties ?? {}).sort();

  it("the full offer has every field of the Resources table, each required", () => {
    const offer = schema("preorders.offers.get");
    const table = ["id", "name", "internal_name", "status", "created_at", "updated_at", "variants", "products", "widget", "shipping", "payments"];
    const rest = ["limits", "checkout", "inventory", "markets", "countdown", "integrations", "translations", "advanced"];
    expect(offer.required).toEqual(expect.arrayContaining([...table, ...rest]));
    expect(keys(offer.properties?.variants)).toEqual(["count", "url"]);
    expect(keys(offer.properties?.widget)).toEqual(["badge", "button", "disclaimer"]);
    expect(keys(offer.properties?.shipping?.properties?.delivery)).toEqual(["applies_to_all_products", "date", "days", "type"]);
    expect(keys(offer.properties?.limits?.properties?.total)).toEqual(["current_count", "max"]);
    expect(keys(offer.properties?.checkout)).toEqual(["mixed_cart", "order_tags", "terms"]);
    expect(keys(offer.properties?.integrations)).toEqual(["b2b", "pos"]);
    // every group's GET answers what the full offer holds under its key
    for (const group of ["products", "widget", "shipping", "payments", ...rest]) {
      expect(schema(`preorders.offers.${group}.get`), group).toEqual(offer.properties?.[group]);
    }
  });

  it("set_button_text answers the widget snapshot; set_source_to_all the products group with a job handle", () => {
    const snapshot = schema("preorders.offers.widget.set_button_text");
    expect(keys(snapshot)).toEqual(["badge", "button", "disclaimer"]);
    expect(keys(snapshot.properties?.button)).toEqual(["colors", "text"]);
    expect(keys(snapshot.properties?.disclaimer)).toEqual(["enabled", "text"]);
    expect(keys(snapshot.properties?.badge)).toEqual(["enabled", "text"]);
    const all = schema("preorders.offers.products.set_source_to_all");
    expect(all.required).toEqual(expect.arrayContaining(["source", "job_id", "status_url"]));
  });

  it("the outputs' enums are the groups' own values (outputs.ts writes them out)", () => {
    const { delivery, fulfillment } = shippingOutput.shape;
    expect(delivery.shape.type.options).toEqual([...DELIVERY_TYPES]);
    expect(fulfillment.shape.split.shape.type.unwrap().options).toEqual([...SPLIT_TYPES]);
    expect(paymentsOutput.shape.discount.shape.type.unwrap().options).toEqual([...DISCOUNT_TYPES]);
    expect(paymentsOutput.shape.options.element.shape.type.options).toEqual([...PAYMENT_OPTION_TYPES]);
    expect(Object.keys(advancedOutput.shape.button_text_overrides.shape)).toEqual([...BUTTON_TEXT_STATES]);
    expect(inventoryOutput.shape.reservation.shape.timing.options).toEqual([...RESERVATION_TIMINGS]);
    expect(countdownOutput.shape.mode.options).toEqual([...COUNTDOWN_MODES]);
    expect(countdownOutput.shape.style.shape.type.options).toEqual([...COUNTDOWN_STYLES]);
    expect(productsOutput.shape.source.options).toEqual([...PRODUCT_SOURCES]);
    expect(offerOutput.shape.status.options).toEqual([...OFFER_STATUSES]);
  });

  it("the shipping PATCH states the spec's seven shipping rules as notes", () => {
    const shipping = ACTIONS.find((a) => a.name === "preorders.offers.shipping.update");
    expect(shipping?.notes?.length).toBeGreaterThanOrEqual(7);
  });
});

/** The SDK's own validator (ajv), recording each validation it makes of a tool's answer. */
class RecordingValidator implements jsonSchemaValidator {
  readonly checks: { schema: JsonSchemaType; valid: boolean; error: string | undefined }[] = [];
  private readonly ajv = new AjvJsonSchemaValidator();

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const validate = this.ajv.getValidator<T>(schema);
    return (input) => {
      const result = validate(input);
      this.checks.push({ schema, valid: result.valid, error: result.errorMessage });
      return result;
    };
  }
}

async function connect(validator: jsonSchemaValidator): Promise<Client> {
  const client = new Client({ name: "contract-test", version: "1.0.0" }, { jsonSchemaValidator: validator });
  const transport = new StreamableHTTPClientTransport(new URL(`${env.app.origin}/api/v2/external/mcp?toolsets=all`), {
    requestInit: { headers: { "X-Auth-Token": env.key } },
  });
  await client.connect(transport);
  return client;
}

describe("output schemas over MCP (Streamable HTTP)", () => {
  it("tools/list gives each JSON action its output schema as outputSchema, and none to a file answer", async () => {
    const client = await connect(new AjvJsonSchemaValidator());
    const { tools } = await client.listTools();
    await client.close();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(
      offenders((a) => {
        const tool = byName.get(toolName(a));
        if (!tool) return "no tool";
        if (!a.output) return undefined; // reported above
        // compared as values: the SDK's parse of a tool puts type, properties and required first
        if (isJsonObject(a)) return isDeepStrictEqual(tool.outputSchema, responseSchema(a)) ? undefined : "outputSchema differs from /help's";
        return tool.outputSchema === undefined ? undefined : "a file answer with an outputSchema";
      }),
    ).toEqual([]);
  });

  it("the SDK client validates a read's and a write's structuredContent against the outputSchema", async () => {
    const created = await api(env.app, "POST", "/preorders/offers", { key: env.key, body: { name: "Contract offer" } });
    expect(created.status).toBe(202);
    const id = (created.body as { id: string }).id;

    const validator = new RecordingValidator();
    const client = await connect(validator);
    const { tools } = await client.listTools();
    const schemaOfTool = (name: string) => tools.find((t) => t.name === name)?.outputSchema;

    // a read
    const read = await client.callTool({ name: "preorders_offers_get", arguments: { id } });
    expect(read.isError).toBeFalsy();
    expect(read.structuredContent).toMatchObject({ id, name: "Contract offer", status: "draft" });
    // a write, whose answer (the widget snapshot) has a shape of its own
    const write = await client.callTool({ name: "preorders_offers_widget_set_button_text", arguments: { id, text: "Reserve yours" } });
    expect(write.isError).toBeFalsy();
    expect(write.structuredContent).toEqual({
      button: { text: "Reserve yours", colors: { enabled: false, text_color: "#ffffff", background_color: "#000000" } },
      disclaimer: { enabled: false, text: expect.any(String) as unknown },
      badge: { enabled: false, text: "Preorder" },
    });
    await client.close();

    const checked = (name: string) => validator.checks.filter((c) => c.schema === schemaOfTool(name));
    expect(checked("preorders_offers_get")).toEqual([{ schema: schemaOfTool("preorders_offers_get"), valid: true, error: undefined }]);
    expect(checked("preorders_offers_widget_set_button_text")).toEqual([
      { schema: schemaOfTool("preorders_offers_widget_set_button_text"), valid: true, error: undefined },
    ]);

    // The same validator refuses an answer that strays from the schema: the check can fail.
    const offerSchema = schemaOfTool("preorders_offers_get");
    if (!offerSchema) throw new Error("preorders_offers_get has no outputSchema");
    const validate = new AjvJsonSchemaValidator().getValidator(offerSchema);
    const answer = read.structuredContent as Record<string, unknown>;
    expect(validate(answer).valid).toBe(true);
    const { status: _status, ...withoutStatus } = answer;
    expect(validate(withoutStatus).valid).toBe(false);
    expect(validate({ ...answer, surprise: true }).valid).toBe(false);
    expect(validate({ ...answer, status: "archived" }).valid).toBe(false);
  });

  it("the tool description carries the action's notes and aliases", async () => {
    const client = await connect(new AjvJsonSchemaValidator());
    const { tools } = await client.listTools();
    await client.close();
    const enable = tools.find((t) => t.name === "preorders_offers_enable");
    const action = ACTIONS.find((a) => a.name === "preorders.offers.enable");
    if (!action) throw new Error("no preorders.offers.enable");
    expect(enable?.description).toBe(toolDescription(action));
    const lines = enable?.description?.split("\n") ?? [];
    expect(lines[0]).toBe(action.description);
    expect(lines).toContain("- Idempotent: an offer already active is answered as it is, unchanged.");
    expect(lines.at(-1)).toBe('Said as: "enable a preorder offer", "turn on preorders for an offer", "publish a preorder offer"');
  });
});

describe("llms.txt", () => {
  it("lists each action's aliases and notes under its line", async () => {
    const response = await fetch(`${env.app.origin}/api/v2/external/llms.txt`);
    expect(response.status).toBe(200);
    const text = await response.text();
    const line = text.split("\n").findIndex((l) => l.startsWith("- `POST /preorders/offers/{id}/enable` (preorders.offers.enable, cost 2):"));
    expect(line).toBeGreaterThan(0);
    expect(text.split("\n").slice(line + 1, line + 3)).toEqual([
      '  - Said as: "enable a preorder offer", "turn on preorders for an offer", "publish a preorder offer"',
      "  - Note: Idempotent: an offer already active is answered as it is, unchanged.",
    ]);
    // every alias of every action is in the document
    const missing = ACTIONS.flatMap((a) => (a.aliases ?? []).filter((phrase) => !text.includes(`"${phrase}"`)).map((phrase) => `${a.name}: ${phrase}`));
    expect(missing).toEqual([]);
  });
});
