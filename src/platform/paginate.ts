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
 * without holding the whole list. The next page is requested as soon as a page arrives, so the
 * caller's work on one page overlaps the platform's answer for the next. The query must declare
 * `$first: Int` and `$after: String` and select `pageInfo { hasNextPage endCursor }`;
 * `selectConnection` finds (and should validate) the connection in the answer.
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
  const fetchPage = async (after: string | null) => selectConnection(await client.request<unknown>(query, { ...variables, first, after }, options));
  let after: string | null = null;
  let pending = fetchPage(after);
  for (;;) {
    const { nodes, pageInfo }: Connection<TNode> = await pending;
    if (!pageInfo.hasNextPage) {
      if (nodes.length > 0) yield nodes;
      return;
    }
    // A next page without a new cursor would loop forever on the same page.
    if (pageInfo.endCursor === null || pageInfo.endCursor === after) {
      throw new PlatformError(`Pagination did not advance past cursor ${String(after)}`, { kind: "graphql", attempts: 0 });
    }
    after = pageInfo.endCursor;
    pending = fetchPage(after);
    // A caller that stops early must not leave a rejected prefetch unobserved.
    pending.catch(() => undefined);
    if (nodes.length > 0) yield nodes;
  }
}

/** All nodes of a connection, for lists known to be small. */
export async function collect<TNode>(pages: AsyncIterable<TNode[]>): Promise<TNode[]> {
  const all: TNode[] = [];
  for await (const page of pages) all.push(...page);
  return all;
}
