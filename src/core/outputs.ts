import { z } from "zod";

/**
 * Building blocks of action output schemas (`output` of defineAction): what the wire carries,
 * after JSON serialisation (a Date is an ISO 8601 string there).
 */

export const timestampOutput = z.iso.datetime({ offset: true }).describe("ISO 8601 timestamp, UTC");

export const jobHandleOutput = z
  .strictObject({
    job_id: z.string().describe("the job's id"),
    status_url: z.string().describe("path of GET /jobs/{job_id} under the v2 base path; poll it until the status is terminal"),
  })
  .describe("Job handle: the work runs in the background");

/** A page of a list, as `pageAnswer` (src/core/paging.ts) builds it. */
export function pageOutput<K extends string, T extends z.ZodType>(key: K, item: T) {
  return z.strictObject({
    ...({ [key]: z.array(item) } as Record<K, z.ZodArray<T>>),
    page: z.int().min(1).nullable().describe("the page number; null when the page was asked by cursor"),
    per_page: z.int().min(1),
    total: z.int().min(0).describe("items in the whole list"),
    next_cursor: z.string().nullable().describe("pass as cursor for the next page; null on the last page"),
    meta: z
      .strictObject({
        total_count: z.int().min(0).describe("items in the whole list (as total)"),
        page: z.int().min(1).nullable().describe("as page"),
        per_page: z.int().min(1),
        total_pages: z.int().min(0).describe("pages of per_page items in the whole list; 0 for an empty list"),
      })
      .describe("the page's position in the list, as other APIs of the store's apps answer it"),
  });
}
