import { z } from "zod";
import type { PlatformRequester, RequestOptions } from "./client.ts";
import { PlatformError } from "./errors.ts";

export interface PageInfo {
  hasNextPage: boolean;
  endCursor: string | null;
}

export interface Connection<TNode> {
  nodes: TNode[];
  pageInfo: PageInfo;
}

/** The platform's page size limit for `first`. */
export const MAX_PAGE_SIZE = 250;

/** A zod schema for `{ nodes { ... } pageInfo { hasNextPage endCursor } }` with the given node schema. */
export function connectionSchema<S extends z.ZodType>(node: S) {
  return z.object({
    nodes: z.array(node),
    pageInfo: z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() }),
  });
}

/**
 * Pages through one connection, yielding each page's nodes so a caller can write page by page
 * without holding the whole list. The query must declare `$first: Int` and `$after: String`
 * and select `pageInfo { hasNextPage endCursor }`; `selectConnection` finds (and should
 * validate) the connection in the answer.
 */
export async function* paginate<TNode>(
  client: PlatformRequester,
  query: string,
  variables: Record<string, unknown>,
  selectConnection: (data: unknown) => Connection<TNode>,
  pageSize = MAX_PAGE_SIZE,
  options: RequestOptions = {},
): AsyncGenerator<TNode[], void, undefined> {
  const first = Math.min(Math.max(1, pageSize), MAX_PAGE_SIZE);
  let after: string | null = null;
  for (;;) {
    const data = await client.request<unknown>(query, { ...variables, first, after }, options);
    const { nodes, pageInfo } = selectConnection(data);
    if (nodes.length > 0) yield nodes;
    if (!pageInfo.hasNextPage) return;
    // A next page without a new cursor would loop forever on the same page.
    if (pageInfo.endCursor === null || pageInfo.endCursor === after) {
      throw new PlatformError(`Pagination did not advance past cursor ${String(after)}`, { kind: "graphql", attempts: 0 });
    }
    after = pageInfo.endCursor;
  }
}

/** All nodes of a connection, for lists known to be small. */
export async function collect<TNode>(pages: AsyncIterable<TNode[]>): Promise<TNode[]> {
  const all: TNode[] = [];
  for await (const page of pages) all.push(...page);
  return all;
}
