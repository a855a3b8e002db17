import { readFileSync } from "node:fs";
import {
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type GraphQLTypeResolver,
  GraphQLError,
  buildSchema,
  getNamedType,
  isObjectType,
} from "graphql";
import type { Context } from "./context.ts";
import { gid } from "./ids.ts";
import { iso } from "./money.ts";
import { appResolvers } from "./resolvers/app.ts";
import { catalogResolvers } from "./resolvers/catalog.ts";
import { draftOrderResolvers } from "./resolvers/draft-orders.ts";
import { fulfillmentOrderResolvers } from "./resolvers/fulfillment-orders.ts";
import { metafieldResolvers } from "./resolvers/metafields.ts";
import { orderEditResolvers } from "./resolvers/order-edits.ts";
import { orderResolvers } from "./resolvers/orders.ts";
import { queryResolvers } from "./resolvers/query.ts";
import { sellingPlanMutations } from "./resolvers/selling-plan-mutations.ts";
import { sellingPlanResolvers } from "./resolvers/selling-plans.ts";
import { tagMutations } from "./resolvers/tags.ts";
import type { Resolver, Resolvers } from "./resolvers/types.ts";
import { variantMutations } from "./resolvers/variant-mutations.ts";

/**
 * Shopify's Admin schema as vendored (decision 0216): the emulator serves the platform's own
 * interface (decision 0217), answering what it emulates and naming what it does not.
 */
const SCHEMA_PATH = new URL("../admin-2026-07.graphql", import.meta.url);

function merge(...maps: Resolvers[]): Resolvers {
  const merged: Resolvers = {};
  for (const map of maps) {
    for (const [type, fields] of Object.entries(map)) merged[type] = { ...merged[type], ...fields };
  }
  return merged;
}

const RESOLVERS = merge(queryResolvers, catalogResolvers, orderResolvers, sellingPlanResolvers, sellingPlanMutations, tagMutations, metafieldResolvers, fulfillmentOrderResolvers, variantMutations, appResolvers, orderEditResolvers, draftOrderResolvers);

/** A resolver for a field the schema does not have is a typo or a field the platform dropped: refuse to start. */
export function checkResolvers(schema: GraphQLSchema, resolvers: Resolvers): void {
  for (const [typeName, fields] of Object.entries(resolvers)) {
    const type = schema.getType(typeName);
    if (!isObjectType(type)) throw new Error(`emulator resolvers name type ${typeName}, which the schema does not define`);
    for (const field of Object.keys(fields)) {
      if (!type.getFields()[field]) throw new Error(`emulator resolvers name ${typeName}.${field}, which the schema does not define`);
    }
  }
}

export interface EmulatorSchema {
  schema: GraphQLSchema;
  fieldResolver: GraphQLFieldResolver<unknown, Context>;
  typeResolver: GraphQLTypeResolver<unknown, Context>;
}

type AnyResolver = (source: unknown, args: unknown, context: Context, info: Parameters<Resolver>[3]) => unknown;

/**
 * A field the emulator has no resolver for and its record no property of: an error naming it, so a
 * document reading it fails loudly here rather than getting a null or a made-up value.
 */
function notEmulated(info: GraphQLResolveInfo): GraphQLError {
  return new GraphQLError(`Field ${info.parentType.name}.${info.fieldName} is not emulated`, { extensions: { code: "NOT_EMULATED" } });
}

/**
 * The schema from the SDL file, with one field resolver for all fields: a listed resolver when
 * there is one, else the record's property, else the not-emulated error. Numeric ids become gids
 * of the parent type and millisecond DateTimes become ISO strings here, so records need no
 * per-field code for them.
 */
export function loadSchema(path: URL = SCHEMA_PATH): EmulatorSchema {
  if (path.href === SCHEMA_PATH.href) {
    // Building the 3,500 types takes a good part of a second: once per process, shared by every emulator.
    shared ??= build(path);
    return shared;
  }
  return build(path);
}

let shared: EmulatorSchema | undefined;

function build(path: URL): EmulatorSchema {
  const schema = buildSchema(readFileSync(path, "utf8"));
  checkResolvers(schema, RESOLVERS);
  const fieldResolver: GraphQLFieldResolver<unknown, Context> = (source, args, context, info) => {
    const custom = RESOLVERS[info.parentType.name]?.[info.fieldName] as AnyResolver | undefined;
    if (custom) return custom(source, args, context, info);
    if (typeof source !== "object" || source === null || !(info.fieldName in source)) throw notEmulated(info);
    const value = (source as Record<string, unknown>)[info.fieldName];
    if (typeof value === "number") {
      if (info.fieldName === "id") return gid(info.parentType.name, value);
      if (getNamedType(info.returnType).name === "DateTime") return iso(value);
    }
    return value;
  };
  const typeResolver: GraphQLTypeResolver<unknown, Context> = (value) => (value as { kind?: string } | null)?.kind;
  return { schema, fieldResolver, typeResolver };
}
