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
 * Query cost as the platform computes it. Requested cost, from the query alone: scalars and enums
 * 0, an object 1 plus its selection, a connection 2 plus `first` times the cost of one node, a
 * mutation 10 plus its payload's selection. Actual cost, after execution: the same walk over the
 * answer, counting the nodes that came back. For an interface (`node`, `nodes`) the requested cost
 * takes the dearest possible type; the actual cost the type the answer's gid names.
 */

const MUTATION_COST = 10;
const CONNECTION_COST = 2;

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

// Requested cost.

function objectCost(walk: Walk, type: GraphQLNamedType, sets: readonly SelectionSetNode[]): number {
  return Math.max(0, ...concreteTypes(walk, type).map((t) => selectionCost(walk, t, sets)));
}

function selectionCost(walk: Walk, type: GraphQLObjectType, sets: readonly SelectionSetNode[]): number {
  let cost = 0;
  for (const nodes of collect(walk, type, sets).values()) cost += fieldCost(walk, type, nodes);
  return cost;
}

/** One node of a connection: through `nodes` or `edges { node }`, whichever is dearer (they are the same rows). */
function connectionNodeCost(walk: Walk, connection: GraphQLObjectType, sets: readonly SelectionSetNode[]): number {
  let cost = 0;
  for (const nodes of collect(walk, connection, sets).values()) {
    const info = fieldInfo(walk, connection, nodes);
    if (info?.name === "nodes") cost = Math.max(cost, 1 + objectCost(walk, info.type, info.subs));
    if (info?.name === "edges" && isObjectType(info.type)) {
      for (const edgeNodes of collect(walk, info.type, info.subs).values()) {
        const node = fieldInfo(walk, info.type, edgeNodes);
        if (node?.name === "node") cost = Math.max(cost, 1 + objectCost(walk, node.type, node.subs));
      }
    }
  }
  return cost;
}

function firstArg(args: Record<string, unknown>): number {
  return typeof args.first === "number" ? Math.max(0, args.first) : 0;
}

function fieldCost(walk: Walk, parent: GraphQLObjectType, nodes: readonly FieldNode[]): number {
  const info = fieldInfo(walk, parent, nodes);
  if (!info) return 0;
  if (parent === walk.mutationType) return MUTATION_COST + objectCost(walk, info.type, info.subs);
  if (isConnection(info.type)) return CONNECTION_COST + firstArg(info.args) * connectionNodeCost(walk, info.type, info.subs);
  const one = 1 + objectCost(walk, info.type, info.subs);
  // `nodes(ids:)` answers one object per id.
  return Array.isArray(info.args.ids) ? one * info.args.ids.length : one;
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

function actualConnectionNodes(walk: Walk, connection: GraphQLObjectType, sets: readonly SelectionSetNode[], record: Record<string, unknown>): number {
  let cost = 0;
  for (const [key, nodes] of collect(walk, connection, sets)) {
    const info = fieldInfo(walk, connection, nodes);
    const list = record[key];
    if (!info || !Array.isArray(list)) continue;
    if (info.name === "nodes") {
      cost = Math.max(cost, list.reduce((sum: number, node) => sum + (node === null ? 0 : 1 + actualObjectCost(walk, info.type, info.subs, node)), 0));
    }
    const edgeType = info.type;
    if (info.name === "edges" && isObjectType(edgeType)) {
      let sum = 0;
      for (const edge of list) {
        const edgeRecord = asRecord(edge);
        if (!edgeRecord) continue;
        let one = 0;
        for (const [edgeKey, edgeNodes] of collect(walk, edgeType, info.subs)) {
          const node = fieldInfo(walk, edgeType, edgeNodes);
          if (node?.name === "node" && edgeRecord[edgeKey]) one = Math.max(one, 1 + actualObjectCost(walk, node.type, node.subs, edgeRecord[edgeKey]));
        }
        sum += one;
      }
      cost = Math.max(cost, sum);
    }
  }
  return cost;
}

function actualFieldCost(walk: Walk, parent: GraphQLObjectType, nodes: readonly FieldNode[], value: unknown): number {
  const info = fieldInfo(walk, parent, nodes);
  if (!info) return 0;
  if (parent === walk.mutationType) return MUTATION_COST + actualObjectCost(walk, info.type, info.subs, value);
  if (isConnection(info.type)) {
    const record = asRecord(value);
    return record ? CONNECTION_COST + actualConnectionNodes(walk, info.type, info.subs, record) : 0;
  }
  if (Array.isArray(value)) {
    const each = value.map((v) => (v === null ? 0 : 1 + actualObjectCost(walk, info.type, info.subs, v)));
    // Requested cost counts a plain list as one object, except `nodes(ids:)`; the actual cost follows suit.
    return Array.isArray(info.args.ids) ? each.reduce((a, b) => a + b, 0) : Math.max(1, ...each);
  }
  return value === null || value === undefined ? 0 : 1 + actualObjectCost(walk, info.type, info.subs, value);
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
