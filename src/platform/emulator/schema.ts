import { readFileSync } from "node:fs";
import {
  type GraphQLFieldResolver,
  type GraphQLSchema,
  type GraphQLTypeResolver,
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

/** The contract shared with the client: the emulator serves exactly this file. */
const SCHEMA_PATH = new URL("../admin-schema.graphql", import.meta.url);

function merge(...maps: Resolvers[]): Resolvers {
  const merged: Resolvers = {};
  for (const map of maps) {
    for (const [type, fields] of Object.entries(map)) merged[type] = { ...merged[type], ...fields };
  }
  return merged;
}

const RESOLVERS = merge(queryResolvers, catalogResolvers, orderResolvers, sellingPlanResolvers, sellingPlanMutations, tagMutations, metafieldResolvers, fulfillmentOrderResolvers, variantMutations, appResolvers, orderEditResolvers, draftOrderResolvers);

/** A resolver for a field the schema does not have is a typo or a renamed field: refuse to start. */
function checkResolvers(schema: GraphQLSchema, resolvers: Resolvers): void {
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
 * The schema from the SDL file, with one field resolver for all fields: a listed resolver when
 * there is one, else the record's property. Numeric ids become gids of the parent type and
 * millisecond DateTimes become ISO strings here, so records need no per-field code for them.
 */
export function loadSchema(path: URL = SCHEMA_PATH): EmulatorSchema {
  const schema = buildSchema(readFileSync(path, "utf8"));
  checkResolvers(schema, RESOLVERS);
  const fieldResolver: GraphQLFieldResolver<unknown, Context> = (source, args, context, info) => {
    const custom = RESOLVERS[info.parentType.name]?.[info.fieldName] as AnyResolver | undefined;
    if (custom) return custom(source, args, context, info);
    const value = (source as Record<string, unknown> | null)?.[info.fieldName];
    if (typeof value === "number") {
      if (info.fieldName === "id") return gid(info.parentType.name, value);
      if (getNamedType(info.returnType).name === "DateTime") return iso(value);
    }
    return value;
  };
  const typeResolver: GraphQLTypeResolver<unknown, Context> = (value) => (value as { kind?: string } | null)?.kind;
  return { schema, fieldResolver, typeResolver };
}
