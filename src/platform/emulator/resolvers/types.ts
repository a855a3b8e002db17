import type { GraphQLResolveInfo } from "graphql";
import type { Context } from "../context.ts";

/**
 * A field resolver with its own source and argument types. graphql-js has validated and coerced
 * the arguments against the schema before calling, so each resolver states their shape; `never`
 * here lets a map hold resolvers of any source and argument types.
 */
export type Resolver = (source: never, args: never, context: Context, info: GraphQLResolveInfo) => unknown;

/** Type name → field name → resolver; fields not listed read the record's property of that name. */
export type Resolvers = Record<string, Record<string, Resolver>>;

export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
}

export interface SearchArgs extends ConnectionArgs {
  query?: string | null;
  sortKey?: string | null;
  reverse?: boolean | null;
}

export interface IdArgs {
  id: string;
}
