import { z } from "zod";
import { jsonInt, queryInt } from "./params.ts";
import { EARLIEST_INSTANT, LATEST_INSTANT } from "./period.ts";
import { unstorable } from "./text-input.ts";

/**
 * One paging behaviour for every list: `per_page` (1 to 250, default 50), and either `page` (from
 * 1: offset paging) or `cursor` (the previous page's `next_cursor`: keyset paging, stable while
 * items are added). Every list answers `{ <items>, page, per_page, total, next_cursor }`: `page`
 * is null on a cursor page, `total` counts every item the filters match, and `next_cursor` is null
 * on the last page; `meta { total_count, page, per_page, total_pages }` says the same as other APIs
 * of the store's apps (STOQ's) answer it, so their clients page through ours unchanged.
 */

const MAX_PER_PAGE = 250;
export const DEFAULT_PER_PAGE = 50;
const MAX_PAGE = 1_000_000;

/** How descriptions say it, the same way in every list. */
export const PAGING_RULE = `Paging: per_page (1 to ${String(MAX_PER_PAGE)}, default ${String(DEFAULT_PER_PAGE)}) and either page (from 1) or cursor (the previous answer's next_cursor, which stays valid while items are added; null on the last page); the answer carries page (null with a cursor), per_page, total and next_cursor, and meta { total_count, page, per_page, total_pages }`;

/** Opaque keyset cursor: the sort key of the last item of the previous page. */
function encodeCursor(values: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(values)).toString("base64url");
}

const INT8_MAX = 2n ** 63n - 1n;

/**
 * The parts a cursor's sort key is made of, each refused unless PostgreSQL can take it as the
 * column's type: a cursor is client input like any other (decoded from base64url, so the
 * dispatcher's text check never saw its content).
 */
export const cursorPart = {
  timestamp: z.iso.datetime().refine((v) => {
    const at = Date.parse(v);
    return at >= EARLIEST_INSTANT && at <= LATEST_INSTANT;
  }),
  uuid: z.uuid(),
  bigint: z
    .string()
    .regex(/^\d{1,19}$/)
    .refine((v) => BigInt(v) <= INT8_MAX),
  text: z
    .string()
    .max(200)
    .refine((v) => !unstorable(v)),
};

/** A cursor query parameter, decoded into the list's sort key (`shape`). */
function cursorParam<T extends z.ZodType>(shape: T) {
  return z
    .string()
    .transform((value, ctx): z.output<T> => {
      let decoded: unknown;
      try {
        decoded = JSON.parse(Buffer.from(value, "base64url").toString("utf8"));
      } catch {
        decoded = undefined;
      }
      const parsed = shape.safeParse(decoded);
      if (!parsed.success) {
        ctx.addIssue({ code: "custom", message: "must be the next_cursor of a previous page", input: value });
        return z.NEVER;
      }
      return parsed.data;
    })
    .describe("next_cursor of the previous page");
}

/** The paging fields of a list's query, with the list's cursor (its sort key). */
export function pagingParams<T extends z.ZodType>(cursorKey: T) {
  return {
    page: queryInt(1, MAX_PAGE).optional(),
    per_page: queryInt(1, MAX_PER_PAGE).optional(),
    cursor: cursorParam(cursorKey).optional(),
  };
}

/**
 * The same paging fields in a JSON body (the CSV export of a list, which takes the list's query as
 * its body): page and per_page as JSON integers, with the same bounds and messages.
 */
export function bodyPagingParams<T extends z.ZodType>(cursorKey: T) {
  return {
    page: jsonInt().min(1).max(MAX_PAGE).optional(),
    per_page: jsonInt().min(1).max(MAX_PER_PAGE).optional(),
    cursor: cursorParam(cursorKey).optional(),
  };
}

/** A page and a cursor contradict each other: refused rather than one silently winning. */
export function pageOrCursor(value: { page?: unknown; cursor?: unknown }, ctx: z.RefinementCtx): void {
  if (value.page !== undefined && value.cursor !== undefined) ctx.addIssue({ code: "custom", path: ["cursor"], message: "is not allowed with page" });
}

export interface Paging<C> {
  /** null on a cursor page. */
  page: number | null;
  perPage: number;
  offset: number;
  /** The sort key to continue after (keyset), when a cursor was given. */
  after: C | undefined;
  /** Rows to fetch: one more than a page, to know whether another follows. */
  limit: number;
}

export function paging<C>(input: { page?: number | undefined; per_page?: number | undefined; cursor?: C | undefined }): Paging<C> {
  const perPage = input.per_page ?? DEFAULT_PER_PAGE;
  if (input.cursor !== undefined) return { page: null, perPage, offset: 0, after: input.cursor, limit: perPage + 1 };
  const page = input.page ?? 1;
  return { page, perPage, offset: (page - 1) * perPage, after: undefined, limit: perPage + 1 };
}

/** The answer of a list from the rows fetched with `paging.limit`: items, page, per_page, total, next_cursor. */
export function pageAnswer<R, K extends string>(
  key: K,
  p: Paging<unknown>,
  rows: readonly R[],
  total: number,
  sortKey: (row: R) => readonly (string | number)[],
  present: (row: R) => unknown,
): Record<K, unknown[]> & PageFields {
  const items = rows.slice(0, p.perPage);
  const last = items.at(-1);
  return {
    [key]: items.map(present),
    page: p.page,
    per_page: p.perPage,
    total,
    next_cursor: rows.length > p.perPage && last !== undefined ? encodeCursor(sortKey(last)) : null,
    meta: { total_count: total, page: p.page, per_page: p.perPage, total_pages: Math.ceil(total / p.perPage) },
  } as Record<K, unknown[]> & PageFields;
}

/** What every list answers beside its items. */
interface PageFields {
  page: number | null;
  per_page: number;
  total: number;
  next_cursor: string | null;
  meta: { total_count: number; page: number | null; per_page: number; total_pages: number };
}
