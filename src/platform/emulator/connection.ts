import { type CursorKey, decodeCursor, encodeCursor } from "./ids.ts";

/** The platform's page size limit. */
const MAX_PAGE_SIZE = 250;

interface PageArgs {
  first?: number | null;
  after?: string | null;
  reverse?: boolean | null;
}

/** Rows in ascending (value, id) order, read by position: an array, or an index over one. */
export interface Source<T> {
  readonly length: number;
  at(position: number): T;
  key(position: number): CursorKey;
}

interface Connection<T> {
  nodes: T[];
  edges: { cursor: string; node: T }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

/** Rows sorted by id. */
export function byId<T extends { id: number }>(rows: readonly T[]): Source<T> {
  return {
    length: rows.length,
    at: (i) => rows[i] as T,
    key: (i) => {
      const id = (rows[i] as T).id;
      return { lastId: id, lastValue: id };
    },
  };
}

/** Rows in the order of an index of positions (e.g. by updatedAt). */
export function byIndex<T extends { id: number }>(rows: readonly T[], order: Int32Array, value: (row: T) => number): Source<T> {
  const row = (i: number) => rows[order[i] ?? -1] as T;
  return {
    length: order.length,
    at: row,
    key: (i) => ({ lastId: row(i).id, lastValue: value(row(i)) }),
  };
}

function compareKeys(a: CursorKey, b: CursorKey): number {
  return a.lastValue - b.lastValue || a.lastId - b.lastId;
}

/** The first position whose key is greater than `key` (binary search: sources are sorted). */
function positionAfter<T>(source: Source<T>, key: CursorKey): number {
  let low = 0;
  let high = source.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareKeys(source.key(mid), key) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The first position whose key is not less than `key`. */
function positionFrom<T>(source: Source<T>, key: CursorKey): number {
  let low = 0;
  let high = source.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareKeys(source.key(mid), key) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

function pageSize(first: number | null | undefined): number {
  if (first === null || first === undefined) throw new Error("you must provide one of first or last");
  if (first < 0 || first > MAX_PAGE_SIZE) throw new Error(`The first argument must be between 0 and ${MAX_PAGE_SIZE} (got ${first})`);
  return first;
}

/**
 * One page: rows after the cursor that match, up to `first`, scanning only as far as needed, so
 * paging a large catalog costs each row once.
 */
export function paginate<T>(source: Source<T>, args: PageArgs, match?: (row: T) => boolean): Connection<T> {
  const size = pageSize(args.first);
  let cursorKey: CursorKey | undefined;
  if (args.after) {
    cursorKey = decodeCursor(args.after);
    if (!cursorKey) throw new Error(`Invalid cursor: ${args.after}`);
  }
  const reverse = args.reverse === true;
  const step = reverse ? -1 : 1;
  let position = reverse
    ? (cursorKey ? positionFrom(source, cursorKey) : source.length) - 1
    : cursorKey
      ? positionAfter(source, cursorKey)
      : 0;
  const hasPreviousPage = cursorKey !== undefined && (reverse ? position < source.length - 1 : position > 0);
  const positions: number[] = [];
  let hasNextPage = false;
  for (; position >= 0 && position < source.length; position += step) {
    if (match && !match(source.at(position))) continue;
    if (positions.length === size) {
      hasNextPage = true;
      break;
    }
    positions.push(position);
  }
  const nodes = positions.map((p) => source.at(p));
  const cursorAt = (i: number) => {
    const p = positions[i];
    return p === undefined ? null : encodeCursor(source.key(p));
  };
  let edges: Connection<T>["edges"] | undefined;
  return {
    nodes,
    // Built only when asked for: most queries select `nodes`, and a cursor per row is dear at 250 rows a page.
    get edges() {
      edges ??= nodes.map((node, i) => ({ cursor: cursorAt(i) ?? "", node }));
      return edges;
    },
    pageInfo: {
      hasNextPage,
      hasPreviousPage,
      startCursor: cursorAt(0),
      endCursor: cursorAt(positions.length - 1),
    },
  };
}
