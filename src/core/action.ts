import type pg from "pg";
import type { z } from "zod";
import type { Config } from "../config.ts";
import type { Log } from "../logger.ts";
import type { Db } from "./db.ts";
import type { Services } from "./services.ts";

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
type ActionKind = "read" | "write";

export const COST: Record<ActionKind, number> = { read: 1, write: 2 };

export interface ActionContext {
  shopId: string;
  requestId: string;
  /** Reads get the pool (each statement atomic); writes get the client of their one transaction. */
  db: Db;
  pool: pg.Pool;
  log: Log;
  config: Config;
  /** The platform runtime and the channels, built once per process. */
  services: Services;
  /** Everything registered, for discovery actions. */
  registry: { actions: readonly AnyAction[] };
}

type ObjectSchema = z.ZodType<Record<string, unknown>, Record<string, unknown>>;

export interface ActionDefinition<P extends ObjectSchema, I extends z.ZodType> {
  /** Dotted, unique: `account.languages.get`. */
  name: string;
  method: HttpMethod;
  /** Relative to the v2 prefix, `{param}` placeholders. */
  path: string;
  /**
   * Natural-language phrases an agent or a developer might say for this action
   * ("turn on preorders for an offer"): lower case, unique across the registry. Not routes.
   */
  aliases?: string[];
  description: string;
  /** Rules and caveats beyond the description, one sentence each: shown in /help and the docs. */
  notes?: string[];
  /**
   * What a success answers (the JSON body, as sent). Async actions answer a job handle
   * (`jobHandleOutput`). Rendered in /help, OpenAPI responses and MCP `outputSchema`; the
   * dispatcher checks answers against it when CHECK_RESPONSES is on (every test run).
   */
  output?: z.ZodType;
  kind: ActionKind;
  /** True when the action answers a job handle. */
  async?: boolean;
  /** Path parameters; strings in, parsed values out. */
  params?: P;
  /** The query (GET) or JSON body (other methods). */
  input?: I;
  /**
   * Fields the input refuses that a caller may well send (shown in the answer, set elsewhere):
   * dotted path → what to use instead, appended to its `is not allowed`.
   */
  refusedFields?: Readonly<Record<string, string>>;
  handler: (ctx: ActionContext, args: { params: z.output<P>; input: z.output<I> }) => Promise<unknown>;
}

export type AnyAction = ActionDefinition<ObjectSchema, z.ZodType>;

/** Identity at runtime; gives the handler its parsed types. */
export function defineAction<P extends ObjectSchema, I extends z.ZodType>(def: ActionDefinition<P, I>): AnyAction {
  return def;
}
