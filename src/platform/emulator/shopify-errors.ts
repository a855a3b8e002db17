import { type ASTNode, type DocumentNode, type GraphQLError, Kind, type OperationDefinitionNode, visit } from "graphql";

/**
 * The error bodies of Shopify's Admin API, as a real store answers them. Sources: the
 * draft-proxy conformance captures of a live store (fixtures/conformance/.../admin-platform/
 * graphql-base-validation-unhappy-paths.json: parse, validation and variable errors carry no
 * `extensions.cost`); Shopify's rate-limit documentation
 * (https://shopify.dev/docs/apps/build/apis/graphql-admin/rate-limits) and the throttled answers
 * merchants' developers have published (HTTP 200, `actualQueryCost: null`); Shopify's response
 * codes page (https://shopify.dev/docs/api/usage/response-codes) for 401, 402, 404 and 423.
 * The messages of parse errors are graphql-js's, not Shopify's Ruby parser's: a client must not
 * read them, only the code.
 */

const RATE_LIMITS_DOC = "https://shopify.dev/api/usage/rate-limits";
const LIMITS_DOC = "https://shopify.dev/api/usage/limits#rate-limits";

export const INVALID_TOKEN_BODY = { errors: "[API] Invalid API key or access token (unrecognized login or wrong password)" };
/** An API version Shopify does not serve, in the URL's path. */
export const NOT_FOUND_BODY = { errors: "Not Found" };
export const MISSING_QUERY_BODY = { errors: { query: "Required parameter missing or invalid" } };

interface ErrorJson {
  message: string;
  locations?: readonly { line: number; column: number }[];
  path?: readonly string[];
  extensions: Record<string, unknown>;
}

export function throttledError(): ErrorJson {
  return { message: "Throttled", extensions: { code: "THROTTLED", documentation: RATE_LIMITS_DOC } };
}

export function maxCostError(cost: number, maxCost: number): ErrorJson {
  return {
    message:
      `Query cost is ${cost}, which exceeds the single query max cost limit (${maxCost}).\n\n` +
      "See https://shopify.dev/concepts/about-apis/rate-limits for more information on how the\n" +
      "cost of a query is calculated.\n\n" +
      "To query larger amounts of data with fewer limits, bulk operations should be used instead.\n" +
      "See https://shopify.dev/tutorials/perform-bulk-operations-with-admin-api for usage details.\n",
    extensions: { code: "MAX_COST_EXCEEDED", cost, maxCost, documentation: LIMITS_DOC },
  };
}

export function parseError(error: GraphQLError): ErrorJson {
  return { message: error.message, ...(error.locations ? { locations: error.locations } : {}), extensions: { code: "PARSE_ERROR" } };
}

/** "query Name" as graphql-ruby names an operation at the head of an error's path. */
function operationLabel(operation: OperationDefinitionNode | undefined): string {
  if (!operation) return "query";
  return operation.name ? `${operation.operation} ${operation.name.value}` : operation.operation;
}

/** The path graphql-ruby gives a validation error: the operation, then the fields down to the node. */
function documentPath(document: DocumentNode, target: ASTNode | undefined): string[] | undefined {
  if (!target) return undefined;
  let found: string[] | undefined;
  visit(document, {
    enter(node, _key, _parent, _path, ancestors) {
      if (found) return false;
      if (node !== target) return undefined;
      const chain = [...ancestors, node].filter((a): a is ASTNode => typeof a === "object" && a !== null && !Array.isArray(a) && "kind" in a);
      const operation = chain.find((a): a is OperationDefinitionNode => a.kind === Kind.OPERATION_DEFINITION);
      const fields = chain.flatMap((a) => (a.kind === Kind.FIELD ? [a.alias?.value ?? a.name.value] : []));
      found = [operationLabel(operation), ...fields];
      return false;
    },
  });
  return found;
}

/**
 * A validation error in graphql-ruby's words and codes, the ones Shopify answers, for the
 * common cases; others keep graphql-js's message under Shopify's generic validation code.
 */
export function validationError(document: DocumentNode, error: GraphQLError): ErrorJson {
  const node = error.nodes?.[0];
  const path = documentPath(document, node);
  const at = { ...(error.locations ? { locations: error.locations } : {}), ...(path ? { path } : {}) };
  const unknownField = /^Cannot query field "(\w+)" on type "(\w+)"\./.exec(error.message);
  if (unknownField) {
    const [, fieldName, typeName] = unknownField;
    return { message: `Field '${fieldName}' doesn't exist on type '${typeName}'`, ...at, extensions: { code: "undefinedField", typeName, fieldName } };
  }
  const noSelection = /^Field "(\w+)" of type "([\w!\][]+)" must have a selection of subfields\./.exec(error.message);
  if (noSelection) {
    const [, fieldName, type] = noSelection;
    const typeName = (type ?? "").replace(/[!\][]/g, "");
    return {
      message: `Field must have selections (field '${fieldName}' returns ${typeName} but has no selections. Did you mean '${fieldName} { ... }'?)`,
      ...at,
      extensions: { code: "selectionMismatch", nodeName: `field '${fieldName}'`, typeName },
    };
  }
  return { message: error.message, ...at, extensions: { code: "GRAPHQL_VALIDATION_FAILED" } };
}

/** A variable that does not coerce: Shopify names it and lists the problem under `problems`. */
export function invalidVariableError(error: GraphQLError, variables: Record<string, unknown>): ErrorJson {
  const definition = error.nodes?.find((n) => n.kind === Kind.VARIABLE_DEFINITION);
  if (definition?.kind !== Kind.VARIABLE_DEFINITION) return { message: error.message, extensions: { code: "INVALID_VARIABLE" } };
  const name = definition.variable.name.value;
  const type = typeText(definition.type);
  const value = variables[name] ?? null;
  const problem = /at "\w+(?:\.([\w.[\]]+))?"; (.*)$/.exec(error.message);
  const explanation = value === null ? "Expected value to not be null" : (problem?.[2] ?? error.message);
  const problemPath = problem?.[1] ? problem[1].split(/[.[\]]+/).filter(Boolean) : [];
  return {
    message: `Variable $${name} of type ${type} was provided invalid value`,
    ...(error.locations ? { locations: error.locations } : {}),
    extensions: { code: "INVALID_VARIABLE", value, problems: [{ path: problemPath, explanation }] },
  };
}

type TypeNodeLike = { kind: Kind.NAMED_TYPE; name: { value: string } } | { kind: Kind.LIST_TYPE | Kind.NON_NULL_TYPE; type: TypeNodeLike };

function typeText(type: TypeNodeLike): string {
  if (type.kind === Kind.NAMED_TYPE) return type.name.value;
  if (type.kind === Kind.LIST_TYPE) return `[${typeText(type.type)}]`;
  return `${typeText(type.type)}!`;
}
