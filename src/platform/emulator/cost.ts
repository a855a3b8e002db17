import {
  type FieldNode,
  type FragmentDefinitionNode,
  type FragmentSpreadNode,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type InlineFragmentNode,
  type NamedTypeNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  OperationTypeNode,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  isAbstractType,
  isLeafType,
  isObjectType,
} from "graphql";

/**
 * Query cost as Shopify computes it for the Admin API (2026-07). Its documentation
 * (https://shopify.dev/docs/apps/build/apis/graphql-admin/rate-limits) gives the defaults: a
 * scalar or an enum 0, an object 1, an interface or a union the dearest of its possible
 * selections, a connection 2 plus its page of children, a mutation 10; a single query above 1,000
 * points is refused before it runs (MAX_COST_EXCEEDED). It also says every field may carry its
 * own cost. The figures below are the ones a real store reports: 9,490 recorded answers of the
 * draft-proxy conformance captures (test/fixtures/shopify-cost/, checked in
 * test/emulator-cost.test.ts) fit these rules in about 93 % of cases:
 * - a page of `first: n` is not priced as n children but as ⌊2·ln n⌋ of them (at least 1; none
 *   for `first: 0`): `first: 10` costs 2 + 4 × node, `first: 250` 2 + 11 × node;
 * - value objects cost nothing of their own: PageInfo, MoneyV2, MoneyBag, MailingAddress, a
 *   connection's edges and the user errors (DisplayableError);
 * - a count at the root (`productsCount`) costs 10, a count inside an object 1;
 * - a mutation costs 10 plus what its payload's objects select below them (the payload's own
 *   objects, the one it made or changed, are free);
 * - a plain list costs as one of its elements, `nodes(ids:)` included.
 * The actual cost, after execution, is the same walk over the answer: a page counts the nodes
 * that came back; a null object costs nothing; never more than requested.
 */

const MUTATION_COST = 10;
const CONNECTION_COST = 2;
const ROOT_COUNT_COST = 10;
/** Objects that carry values of the one around them, not a fetch of their own. */
const VALUE_TYPES = new Set(["PageInfo", "MoneyV2", "MoneyBag", "MailingAddress"]);

interface CostInput {
  schema: GraphQLSchema;
  operation: OperationDefinitionNode;
  fragments: readonly FragmentDefinitionNode[];
  /** Coerced variable values. */
  variables: Record<string, unknown>;
}

interface Walk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  mutationType: GraphQLObjectType | null | undefined;
  /** The actual-cost walk visits the same selection once per returned node: collect and read arguments once. */
  collected: Map<GraphQLObjectType, WeakMap<SelectionSetNode, Fields>>;
  infos: WeakMap<readonly FieldNode[], FieldInfo | undefined>;
}

type Fields = Map<string, FieldNode[]>;

function included(walk: Walk, node: FieldNode | InlineFragmentNode | FragmentSpreadNode): boolean {
  if (getDirectiveValues(GraphQLSkipDirective, node, walk.variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, walk.variables)?.if !== false;
}

function applies(walk: Walk, condition: NamedTypeNode | undefined, type: GraphQLObjectType): boolean {
  if (!condition) return true;
  const named = walk.schema.getType(condition.name.value);
  if (named === type) return true;
  return named !== undefined && isAbstractType(named) && walk.schema.isSubType(named, type);
}

/** The fields a selection asks of an object of this type, by response key, like execution collects them. */
function collect(walk: Walk, type: GraphQLObjectType, sets: readonly SelectionSetNode[]): Fields {
  const only = sets.length === 1 ? sets[0] : undefined;
  if (!only) return collectInto(walk, type, sets, new Map(), new Set());
  let byType = walk.collected.get(type);
  if (!byType) walk.collected.set(type, (byType = new WeakMap()));
  let fields = byType.get(only);
  if (!fields) byType.set(only, (fields = collectInto(walk, type, sets, new Map(), new Set())));
  return fields;
}

function collectInto(walk: Walk, type: GraphQLObjectType, sets: readonly SelectionSetNode[], into: Fields, seen: Set<string>): Fields {
  for (const set of sets) {
    for (const selection of set.selections) {
      if (!included(walk, selection)) continue;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        into.set(key, [...(into.get(key) ?? []), selection]);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (applies(walk, selection.typeCondition, type)) collectInto(walk, type, [selection.selectionSet], into, seen);
      } else {
        const name = selection.name.value;
        const fragment = walk.fragments.get(name);
        if (!fragment || seen.has(name) || !applies(walk, fragment.typeCondition, type)) continue;
        seen.add(name);
        collectInto(walk, type, [fragment.selectionSet], into, seen);
      }
    }
  }
  return into;
}

function subSelections(nodes: readonly FieldNode[]): SelectionSetNode[] {
  return nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
}

function isConnection(type: GraphQLNamedType): type is GraphQLObjectType {
  return isObjectType(type) && type.name.endsWith("Connection");
}

function concreteTypes(walk: Walk, type: GraphQLNamedType): readonly GraphQLObjectType[] {
  if (isAbstractType(type)) return walk.schema.getPossibleTypes(type);
  return isObjectType(type) ? [type] : [];
}

interface FieldInfo {
  name: string;
  type: GraphQLNamedType;
  args: Record<string, unknown>;
  subs: SelectionSetNode[];
}

function fieldInfo(walk: Walk, parent: GraphQLObjectType, nodes: readonly FieldNode[]): FieldInfo | undefined {
  if (walk.infos.has(nodes)) return walk.infos.get(nodes);
  const info = readFieldInfo(walk, parent, nodes);
  walk.infos.set(nodes, info);
  return info;
}

function readFieldInfo(walk: Walk, parent: GraphQLObjectType, nodes: readonly FieldNode[]): FieldInfo | undefined {
  const node = nodes[0];
  if (!node || node.name.value.startsWith("__")) return undefined;
  const def = parent.getFields()[node.name.value];
  if (!def) return undefined;
  const type = getNamedType(def.type);
  if (isLeafType(type)) return undefined;
  return { name: node.name.value, type, args: getArgumentValues(def, node, walk.variables), subs: subSelections(nodes) };
}

/** How many children a page of `first` (or `last`) is priced at. */
export function pageCostFactor(size: number): number {
  return size <= 0 ? 0 : Math.max(1, Math.floor(2 * Math.log(size)));
}

function isValueType(type: GraphQLObjectType): boolean {
  return VALUE_TYPES.has(type.name) || type.name.endsWith("Edge") || type.getInterfaces().some((i) => i.name === "DisplayableError");
}

/** What a field's object costs on its own: 1, or 0 when every type it may be is a value. */
function ownCost(walk: Walk, type: GraphQLNamedType): number {
  return concreteTypes(walk, type).every(isValueType) ? 0 : 1;
}

function isRootCount(walk: Walk, parent: GraphQLObjectType, info: FieldInfo): boolean {
  return info.type.name === "Count" && parent === walk.schema.getQueryType();
}

// Requested cost.

function objectCost(walk: Walk, type: GraphQLNamedType, sets: readonly SelectionSetNode[]): number {
  return Math.max(0, ...concreteTypes(walk, type).map((t) => selectionCost(walk, t, sets)));
}

function selectionCost(walk: Walk, type: GraphQLObjectType, sets: readonly SelectionSetNode[]): number {
  let cost = 0;
  for (const nodes of collect(walk, type, sets).values()) cost += fieldCost(walk, type, nodes);
  return cost;
}

function pageSize(args: Record<string, unknown>): number {
  const size = typeof args.first === "number" ? args.first : args.last;
  return typeof size === "number" ? Math.max(0, size) : 0;
}

/** A mutation's payload: its own objects are free, what they select below them is not. */
function payloadCost(walk: Walk, type: GraphQLNamedType, sets: readonly SelectionSetNode[]): number {
  return Math.max(
    0,
    ...concreteTypes(walk, type).map((payload) => {
      let cost = 0;
      for (const nodes of collect(walk, payload, sets).values()) {
        const info = fieldInfo(walk, payload, nodes);
        if (info) cost += isConnection(info.type) ? fieldCost(walk, payload, nodes) : objectCost(walk, info.type, info.subs);
      }
      return cost;
    }),
  );
}

function fieldCost(walk: Walk, parent: GraphQLObjectType, nodes: readonly FieldNode[]): number {
  const info = fieldInfo(walk, parent, nodes);
  if (!info) return 0;
  if (parent === walk.mutationType) return MUTATION_COST + payloadCost(walk, info.type, info.subs);
  if (isConnection(info.type)) return CONNECTION_COST + pageCostFactor(pageSize(info.args)) * objectCost(walk, info.type, info.subs);
  if (isRootCount(walk, parent, info)) return ROOT_COUNT_COST;
  return ownCost(walk, info.type) + objectCost(walk, info.type, info.subs);
}

// Actual cost.

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** For an interface, the concrete type the answer's gid names. */
function runtimeType(walk: Walk, candidates: readonly GraphQLObjectType[], sets: readonly SelectionSetNode[], value: Record<string, unknown>) {
  return candidates.find((type) => {
    for (const [key, nodes] of collect(walk, type, sets)) {
      if (nodes[0]?.name.value !== "id") continue;
      const id = value[key];
      return typeof id === "string" && id.startsWith(`gid://shopify/${type.name}/`);
    }
    return false;
  });
}

function actualObjectCost(walk: Walk, type: GraphQLNamedType, sets: readonly SelectionSetNode[], value: unknown): number {
  const record = asRecord(value);
  if (!record) return 0;
  const candidates = concreteTypes(walk, type);
  const known = candidates.length > 1 ? runtimeType(walk, candidates, sets, record) : candidates[0];
  if (known) return actualSelectionCost(walk, known, sets, record);
  return Math.max(0, ...candidates.map((t) => actualSelectionCost(walk, t, sets, record)));
}

function actualSelectionCost(walk: Walk, type: GraphQLObjectType, sets: readonly SelectionSetNode[], record: Record<string, unknown>): number {
  let cost = 0;
  for (const [key, nodes] of collect(walk, type, sets)) {
    if (key in record) cost += actualFieldCost(walk, type, nodes, record[key]);
  }
  return cost;
}

/** One returned row of a page: its `nodes[i]` and `edges[i]`, as the requested cost prices one child. */
function actualRowCost(walk: Walk, connection: GraphQLObjectType, sets: readonly SelectionSetNode[], record: Record<string, unknown>, row: number): number {
  let cost = 0;
  for (const [key, nodes] of collect(walk, connection, sets)) {
    const info = fieldInfo(walk, connection, nodes);
    const list = record[key];
    const item: unknown = Array.isArray(list) ? list[row] : undefined;
    if (info && item !== undefined && item !== null) cost += ownCost(walk, info.type) + actualObjectCost(walk, info.type, info.subs, item);
  }
  return cost;
}

function actualConnectionCost(walk: Walk, connection: GraphQLObjectType, sets: readonly SelectionSetNode[], record: Record<string, unknown>): number {
  const rows = Math.max(0, ...Object.values(record).map((v) => (Array.isArray(v) ? v.length : 0)));
  let dearest = 0;
  for (let row = 0; row < rows; row++) dearest = Math.max(dearest, actualRowCost(walk, connection, sets, record, row));
  return CONNECTION_COST + pageCostFactor(rows) * dearest;
}

function actualPayloadCost(walk: Walk, type: GraphQLNamedType, sets: readonly SelectionSetNode[], value: unknown): number {
  const record = asRecord(value);
  const payload = concreteTypes(walk, type)[0];
  if (!record || !payload) return 0;
  let cost = 0;
  for (const [key, nodes] of collect(walk, payload, sets)) {
    const info = fieldInfo(walk, payload, nodes);
    if (!info || !(key in record)) continue;
    const answer = record[key];
    if (isConnection(info.type)) cost += actualFieldCost(walk, payload, nodes, answer);
    else if (Array.isArray(answer)) cost += Math.max(0, ...answer.map((v) => actualObjectCost(walk, info.type, info.subs, v)));
    else cost += actualObjectCost(walk, info.type, info.subs, answer);
  }
  return cost;
}

function actualFieldCost(walk: Walk, parent: GraphQLObjectType, nodes: readonly FieldNode[], value: unknown): number {
  const info = fieldInfo(walk, parent, nodes);
  if (!info) return 0;
  // A mutation's 10 is spent whatever it answers; a root field's object was looked up even when it is null.
  if (parent === walk.mutationType) return MUTATION_COST + actualPayloadCost(walk, info.type, info.subs, value);
  if (value === null || value === undefined) return parent === walk.schema.getQueryType() && !isConnection(info.type) ? ownCost(walk, info.type) : 0;
  if (isConnection(info.type)) {
    const record = asRecord(value);
    return record ? actualConnectionCost(walk, info.type, info.subs, record) : 0;
  }
  if (isRootCount(walk, parent, info)) return ROOT_COUNT_COST;
  const own = ownCost(walk, info.type);
  // A plain list is priced as one of its elements, the dearest that came back; an empty one was still looked up.
  if (Array.isArray(value)) return own + Math.max(0, ...value.map((v) => actualObjectCost(walk, info.type, info.subs, v)));
  return own + actualObjectCost(walk, info.type, info.subs, value);
}

function walkOf(input: CostInput): { walk: Walk; root: GraphQLObjectType | null | undefined } {
  const walk: Walk = {
    schema: input.schema,
    fragments: new Map(input.fragments.map((f) => [f.name.value, f])),
    variables: input.variables,
    mutationType: input.schema.getMutationType(),
    collected: new Map(),
    infos: new WeakMap(),
  };
  const root = input.operation.operation === OperationTypeNode.MUTATION ? walk.mutationType : input.schema.getQueryType();
  return { walk, root };
}

export function requestedCost(input: CostInput): number {
  const { walk, root } = walkOf(input);
  return root ? selectionCost(walk, root, [input.operation.selectionSet]) : 0;
}

/** The cost of what was answered; never more than requested. */
export function actualCost(input: CostInput, data: unknown, requested: number): number {
  const { walk, root } = walkOf(input);
  const record = asRecord(data);
  if (!root || !record) return 0;
  return Math.min(requested, actualSelectionCost(walk, root, [input.operation.selectionSet], record));
}
