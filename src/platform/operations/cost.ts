import { PLATFORM_ARRAY_LIMIT } from "./chunk.ts";

/** The platform refuses any single query whose requested cost is above this (MAX_COST_EXCEEDED). */
const MAX_QUERY_COST = 1000;

/**
 * The largest batch (page size, or ids per `nodes(ids:)`) whose query stays within
 * MAX_QUERY_COST. The platform prices a query before running it: an object costs 1 plus its
 * selection, a connection 2 plus `first` times one node, `nodes(ids:)` one object per id, so a
 * query of n items costs `overhead + n × itemCost`.
 */
export function largestBatch(itemCost: number, overhead = 0, limit = PLATFORM_ARRAY_LIMIT): number {
  return Math.max(1, Math.min(limit, Math.floor((MAX_QUERY_COST - overhead) / itemCost)));
}
