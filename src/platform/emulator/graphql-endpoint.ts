import { setTimeout as delay } from "node:timers/promises";
import {
  type DocumentNode,
  type GraphQLError,
  Kind,
  OperationTypeNode,
  execute,
  getOperationAST,
  getVariableValues,
  parse,
  validate,
} from "graphql";
import type { Context } from "./context.ts";
import { actualCost, requestedCost } from "./cost.ts";
import type { Faults } from "./faults.ts";
import type { EmulatorSchema } from "./schema.ts";
import {
  INVALID_TOKEN_BODY,
  MISSING_QUERY_BODY,
  invalidVariableError,
  maxCostError,
  parseError,
  throttledError,
  validationError,
} from "./shopify-errors.ts";
import type { Throttle, ThrottleStatus } from "./throttle.ts";

export interface EmulatorStats {
  requests: number;
  throttled: number;
  serverErrors: number;
  costSpent: number;
}

interface GraphqlAnswer {
  status: number;
  /** JSON, or text for the injected gateway errors. */
  body: unknown;
}

interface CostExtension {
  requestedQueryCost: number;
  actualQueryCost: number | null;
  throttleStatus: ThrottleStatus;
}

interface GraphqlEndpointDeps {
  schema: EmulatorSchema;
  context: Context;
  throttle: Throttle;
  faults: Faults;
  accessToken: string;
  stats: EmulatorStats;
  /** Called after a mutation ran: the state may have changed. */
  onMutation?: () => void;
}

function requestBody(body: unknown): { query: string; variables: Record<string, unknown>; operationName: string | undefined } | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { query, variables, operationName } = body as Record<string, unknown>;
  if (typeof query !== "string") return undefined;
  if (variables !== undefined && variables !== null && (typeof variables !== "object" || Array.isArray(variables))) return undefined;
  return {
    query,
    variables: (variables ?? {}) as Record<string, unknown>,
    operationName: typeof operationName === "string" ? operationName : undefined,
  };
}

/**
 * One Admin API request, in Shopify's order: latency and gateway faults first, then the token,
 * parsing and validation, the single-query cost limit, the bucket (or an injected THROTTLED), and
 * only then execution. The bodies are Shopify's (shopify-errors.ts): a document that does not
 * parse, validate or take its variables is refused before it is priced, so without
 * `extensions.cost`, as a real store answers; a throttled one carries its cost with
 * `actualQueryCost: null`; every executed one carries its requested and actual cost.
 */
export class GraphqlEndpoint {
  readonly #deps: GraphqlEndpointDeps;

  constructor(deps: GraphqlEndpointDeps) {
    this.#deps = deps;
  }

  #cost(requested: number, actual: number | null): { cost: CostExtension } {
    return {
      cost: {
        requestedQueryCost: requested,
        actualQueryCost: actual,
        throttleStatus: this.#deps.throttle.status(this.#deps.accessToken),
      },
    };
  }

  /** Refused before it was priced: no cost. */
  #refused(errors: unknown[]): GraphqlAnswer {
    return { status: 200, body: { errors } };
  }

  async handle(token: string | undefined, body: unknown): Promise<GraphqlAnswer> {
    const { stats, faults, throttle, schema, accessToken } = this.#deps;
    stats.requests++;
    if (faults.latencyMs > 0) await delay(faults.latencyMs);
    const failure = faults.serverError();
    if (failure) {
      stats.serverErrors++;
      return { status: failure, body: failure === 502 ? "502 Bad Gateway" : "503 Service Unavailable" };
    }
    if (token !== accessToken) return { status: 401, body: INVALID_TOKEN_BODY };
    const request = requestBody(body);
    if (!request) return { status: 400, body: MISSING_QUERY_BODY };

    let document: DocumentNode;
    try {
      document = parse(request.query);
    } catch (error) {
      return this.#refused([parseError(error as GraphQLError)]);
    }
    const invalid = validate(schema.schema, document);
    if (invalid.length > 0) return this.#refused(invalid.map((e) => validationError(document, e)));
    const operation = getOperationAST(document, request.operationName);
    if (!operation) {
      const message = request.operationName ? `No operation named "${request.operationName}"` : "An operation name is required when the document has several operations";
      return this.#refused([{ message, extensions: { code: "OPERATION_NOT_FOUND" } }]);
    }
    const rootFields = operation.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : []));
    if (faults.fieldFailure(rootFields)) {
      stats.serverErrors++;
      return { status: 503, body: "503 Service Unavailable" };
    }
    const coerced = getVariableValues(schema.schema, operation.variableDefinitions ?? [], request.variables);
    if (coerced.errors) return this.#refused(coerced.errors.map((e) => invalidVariableError(e, request.variables)));

    const costInput = {
      schema: schema.schema,
      operation,
      fragments: document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION),
      variables: coerced.coerced,
    };
    const requested = requestedCost(costInput);
    const { maxQueryCost } = throttle.settings;
    if (requested > maxQueryCost) return this.#refused([maxCostError(requested, maxQueryCost)]);
    if (faults.throttle() || !throttle.take(accessToken, requested)) {
      stats.throttled++;
      return { status: 200, body: { errors: [throttledError()], extensions: this.#cost(requested, null) } };
    }

    const result = await execute({
      schema: schema.schema,
      document,
      operationName: request.operationName,
      variableValues: request.variables,
      contextValue: this.#deps.context,
      fieldResolver: schema.fieldResolver,
      typeResolver: schema.typeResolver,
    });
    if (operation.operation === OperationTypeNode.MUTATION) this.#deps.onMutation?.();
    if (faults.lostAnswer(rootFields)) {
      stats.serverErrors++;
      return { status: 503, body: "503 Service Unavailable" };
    }
    const actual = actualCost(costInput, result.data, requested);
    throttle.refund(accessToken, requested - actual);
    stats.costSpent += actual;
    return {
      status: 200,
      body: { ...(result.errors ? { errors: result.errors.map((e) => e.toJSON()) } : {}), data: result.data ?? null, extensions: this.#cost(requested, actual) },
    };
  }
}
