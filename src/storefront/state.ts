import { z } from "zod";
import type { Db } from "../core/db.ts";

/**
 * What the merchant sees of the shop's storefront configuration writes (write.ts): when the
 * platform last took it, and the failure since, if any (kept until a write succeeds; the write is
 * retried with backoff meanwhile). Imports only the core, so an area's action may answer it.
 */
export const shopConfigStateOutput = z.strictObject({
  written_at: z.string().nullable().describe("when the platform last took the shop's storefront configuration metafield; null: never"),
  last_error: z.string().nullable().describe("why the last write failed (it is retried with backoff); null once a write succeeds"),
  last_error_at: z.string().nullable(),
});

export async function shopConfigState(db: Db, shopId: string): Promise<z.output<typeof shopConfigStateOutput>> {
  const { rows } = await db.query<{ written_at: Date | null; last_error: string | null; last_error_at: Date | null }>(
    "select written_at, last_error, last_error_at from storefront_shop_metafields where shop_id = $1",
    [shopId],
  );
  const row = rows[0];
  return { written_at: row?.written_at?.toISOString() ?? null, last_error: row?.last_error ?? null, last_error_at: row?.last_error_at?.toISOString() ?? null };
}
