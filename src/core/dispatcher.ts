import type pg from "pg";
import type { Config } from "../config.ts";
import { hashApiKey } from "../db/api-keys.ts";
import type { Log } from "../logger.ts";
import { type ActionContext, type AnyAction, COST } from "./action.ts";
import { withTransaction } from "./db.ts";
import { isDatabaseUnavailable } from "./database-unavailable.ts";
import { ApiError, HTTP_STATUS, type Issue, MESSAGES, databaseUnavailable, unprocessable } from "./errors.ts";
import { RawResponse } from "./raw-response.ts";
import { type RateLimitPolicy, authenticateAndCharge, rateLimitHeaders } from "./rate-limit.ts";
import type { Registry, RouteMatch } from "./registry.ts";
import { NO_SERVICES, type Services } from "./services.ts";
import { unstorableTextIssues } from "./text-input.ts";

export const HELP_ACTION = "help";
import { formatIssues } from "./validation.ts";

/** A request as every transport hands it over: already stripped of the transport's own framing. */
interface DispatchRequest {
  method: string;
  /** Relative to the v2 base path, starting with a slash. */
  path: string;
  token: string | undefined;
  /**
   * The shop when the transport has already verified who is calling without an API key (the
   * storefront's app proxy signature, src/http/storefront.ts): no key is looked up and no key's
   * budget charged; the transport limits such callers itself.
   */
  verifiedShopId?: string;
  query: Record<string, unknown>;
  /** The raw body text (HTTP) or an already-parsed value (MCP); `raw: ""` or `parsed: undefined` for no body. */
  body: { raw: string | undefined } | { parsed: unknown };
  requestId: string;
}

interface DispatchResult {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  /** A 422's fields, for transports that name fields their own way (v1, MCP); empty otherwise. */
  issues: Issue[];
}

/**
 * Whether an action needs a request body (decision 0195): every PATCH (the spec's "body required":
 * it says what to change), and a POST or PUT whose input refuses an empty object (it has a
 * required field). Any other action runs an absent body as `{}`.
 */
const NEEDS_BODY = new WeakMap<AnyAction, boolean>();
function needsBody(action: AnyAction): boolean {
  let needs = NEEDS_BODY.get(action);
  if (needs === undefined) {
    needs = action.method === "PATCH" || (action.input !== undefined && !action.input.safeParse({}).success);
    NEEDS_BODY.set(action, needs);
  }
  return needs;
}

/**
 * The action's input from the request body. An absent body (no text, only whitespace, or nothing
 * parsed: an MCP call without arguments) is refused like malformed JSON when the action needs one.
 */
function parseBody(action: AnyAction, body: DispatchRequest["body"]): unknown {
  const text = "parsed" in body ? undefined : (body.raw?.trim() ?? "");
  const absent = "parsed" in body ? body.parsed === undefined : text === "";
  if (absent) {
    if (needsBody(action)) throw new ApiError("BAD_REQUEST", MESSAGES.invalidJson);
    return {};
  }
  if ("parsed" in body) return body.parsed;
  try {
    return JSON.parse(text ?? "") as unknown;
  } catch {
    throw new ApiError("BAD_REQUEST", MESSAGES.invalidJson);
  }
}

function validate(action: AnyAction, params: Record<string, string>, input: unknown): { params: Record<string, unknown>; input: unknown } {
  // Text that PostgreSQL cannot store is refused first, for every action: its message wins over
  // zod's for the same field (formatIssues keeps the first), other fields' messages still follow.
  const issues = unstorableTextIssues(input, unstorableTextIssues(params));
  let parsedParams: Record<string, unknown> = params;
  let parsedInput: unknown = input;
  if (action.params) {
    const result = action.params.safeParse(params, { reportInput: true });
    if (result.success) parsedParams = result.data;
    else issues.push(...result.error.issues);
  }
  if (action.input) {
    const result = action.input.safeParse(input, { reportInput: true });
    if (result.success) parsedInput = result.data;
    else issues.push(...result.error.issues);
  }
  if (issues.length > 0) throw unprocessable(formatIssues(issues, action.refusedFields));
  return { params: parsedParams, input: parsedInput };
}

/** An answer that its action's output schema does not describe is a defect: a 500 (tests turn this on). */
function checkResponse(action: AnyAction, payload: unknown): void {
  if (!action.output) return;
  // The wire form: Dates become ISO strings, undefined fields vanish.
  const wire: unknown = payload === undefined ? undefined : JSON.parse(JSON.stringify(payload));
  const result = action.output.safeParse(wire);
  if (!result.success) {
    const where = result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new Error(`The answer of ${action.name} does not match its output schema: ${where}`);
  }
}

interface DispatcherDeps {
  registry: Registry;
  pool: pg.Pool;
  config: Config;
  log: Log;
  /** Built once by the service (src/runtime/services.ts); absent only for tests of the HTTP layer. */
  services?: Services;
  /** Told about every dispatched request once answered (metrics): the core knows no metrics library. */
  observe?: (observation: DispatchObservation) => void;
  /** The clock rate-limit windows are counted by, in ms since the epoch (tests set it); absent: the database's. */
  now?: () => number;
}

/** One answered request: the matched action's name (undefined when none matched), its status and duration. */
export interface DispatchObservation {
  action: string | undefined;
  status: number;
  seconds: number;
}

/** The one path every transport takes into the core: authenticate, charge, validate, run, map errors. */
export class Dispatcher {
  private readonly deps: DispatcherDeps;
  private readonly policy: RateLimitPolicy;

  constructor(deps: DispatcherDeps) {
    this.deps = deps;
    this.policy = { points: deps.config.RATE_LIMIT_POINTS, windowSeconds: deps.config.RATE_LIMIT_WINDOW_SECONDS, now: deps.now };
  }

  /** The same pool, rate-limit budget and transaction handling over another registry (the v1 interface). */
  withRegistry(registry: Registry): Dispatcher {
    return new Dispatcher({ ...this.deps, registry });
  }

  /** Whether the key is live, without charging it: for transports that authenticate a session. */
  async authenticate(token: string): Promise<boolean> {
    const { rowCount } = await this.deps.pool.query("select 1 from api_keys where key_hash = $1 and revoked_at is null", [hashApiKey(token)]);
    return (rowCount ?? 0) > 0;
  }

  /**
   * Charges a call that runs no action (MCP's initialize, tools/list) like a read: 200 with the
   * rate-limit headers, or the 401 or 429 an action would have answered. It is what a caller
   * would otherwise get free and could repeat without end.
   */
  async charge(token: string | undefined, requestId: string): Promise<DispatchResult> {
    const headers: Record<string, string> = { "x-request-id": requestId };
    try {
      if (!token) throw new ApiError("UNAUTHORIZED", MESSAGES.unauthorized);
      const charge = await authenticateAndCharge(this.deps.pool, hashApiKey(token), COST.read, this.policy);
      if (!charge) throw new ApiError("UNAUTHORIZED", MESSAGES.unauthorized);
      Object.assign(headers, rateLimitHeaders(this.policy, charge));
      if (charge.used > this.policy.points) {
        throw new ApiError("RATE_LIMITED", MESSAGES.rateLimited, { "retry-after": String(charge.resetSeconds) });
      }
      return { status: 200, body: undefined, headers, issues: [] };
    } catch (error) {
      return this.failure(error, { method: "POST", path: "", token, query: {}, body: { parsed: undefined }, requestId }, headers);
    }
  }

  async dispatch(request: DispatchRequest): Promise<DispatchResult> {
    const headers: Record<string, string> = { "x-request-id": request.requestId };
    const started = performance.now();
    const seen: { action?: string } = {};
    let result: DispatchResult;
    try {
      const body = await this.run(request, headers, seen);
      result = { status: body.status, body: body.payload, headers, issues: [] };
    } catch (error) {
      result = this.failure(error, request, headers);
    }
    this.deps.observe?.({ action: seen.action, status: result.status, seconds: (performance.now() - started) / 1000 });
    return result;
  }

  private async run(request: DispatchRequest, headers: Record<string, string>, seen: { action?: string }): Promise<{ status: number; payload: unknown }> {
    const { registry, pool, config, log } = this.deps;
    const method = request.method.toUpperCase();
    const { match, query } = this.route(method, request.path, request.query);
    seen.action = match?.action.name;
    const shopId = request.verifiedShopId ?? (await this.charged(request.token, match ? COST[match.action.kind] : COST.read, headers));
    if (!match) throw new ApiError("NOT_FOUND", MESSAGES.noAction(method, request.path, registry.insteadOf(method, request.path)));

    const { action } = match;
    const rawInput = method === "GET" || method === "DELETE" ? query : parseBody(action, request.body);
    const args = validate(action, match.params, rawInput);
    const context = (db: ActionContext["db"]): ActionContext => ({
      shopId,
      requestId: request.requestId,
      db,
      pool,
      log: log.child({ requestId: request.requestId, action: action.name }),
      config,
      services: this.deps.services ?? NO_SERVICES,
      registry,
    });
    const payload =
      action.kind === "read"
        ? await action.handler(context(pool), args)
        : await withTransaction(pool, (client) => action.handler(context(client), args as never));
    const status = action.kind === "read" ? 200 : 202;
    if (payload instanceof RawResponse) {
      // Not JSON: the body goes out as it is, with its own content type.
      headers["content-type"] = payload.contentType;
      const disposition = payload.contentDisposition();
      if (disposition) headers["content-disposition"] = disposition;
      if (payload.length !== undefined) headers["content-length"] = String(payload.length);
      return { status, payload: payload.body };
    }
    if (config.CHECK_RESPONSES) checkResponse(action, payload);
    return { status, payload };
  }

  /** The key's shop, once its budget is charged `cost`; 401 without a live key, 429 over its budget. */
  private async charged(token: string | undefined, cost: number, headers: Record<string, string>): Promise<string> {
    if (!token) throw new ApiError("UNAUTHORIZED", MESSAGES.unauthorized);
    const charge = await authenticateAndCharge(this.deps.pool, hashApiKey(token), cost, this.policy);
    if (!charge) throw new ApiError("UNAUTHORIZED", MESSAGES.unauthorized);
    Object.assign(headers, rateLimitHeaders(this.policy, charge));
    if (charge.used > this.policy.points) {
      throw new ApiError("RATE_LIMITED", MESSAGES.rateLimited, { "retry-after": String(charge.resetSeconds) });
    }
    return charge.shopId;
  }

  /** `GET <scope>/help` at any level is the manifest narrowed to that scope. */
  private route(method: string, path: string, query: Record<string, unknown>): { match: RouteMatch | undefined; query: Record<string, unknown> } {
    const match = this.deps.registry.match(method, path);
    if (method !== "GET") return { match, query };
    const scope = /^(.*)\/help\/?$/.exec(path)?.[1];
    const help = this.deps.registry.get(HELP_ACTION);
    if (scope === undefined || !help) return { match, query };
    // A route that spells `help` itself keeps it; `/jobs/help` is help, not the job with id "help".
    if (match && !/\{[a-z0-9_]+\}\/?$/.test(match.template)) return { match, query };
    return { match: { action: help, params: {}, template: help.path }, query: { ...query, prefix: scope } };
  }

  private failure(raw: unknown, request: DispatchRequest, headers: Record<string, string>): DispatchResult {
    const error = isDatabaseUnavailable(raw) ? databaseUnavailable() : raw;
    if (error instanceof ApiError) {
      return { status: HTTP_STATUS[error.code], body: { errors: error.messages }, headers: { ...headers, ...error.headers }, issues: error.issues };
    }
    this.deps.log.error({ err: error, requestId: request.requestId, method: request.method, path: request.path }, "action failed");
    return { status: 500, body: { errors: [MESSAGES.internal(request.requestId)] }, headers, issues: [] };
  }
}
