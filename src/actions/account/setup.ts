import { z } from "zod";
import { defineAction } from "../../core/action.ts";
import { CATALOG_SYNC_IN_PROGRESS, catalogReadiness } from "../../catalog/readiness.ts";

export const getSetup = defineAction({
  name: "account.setup.get",
  method: "GET",
  path: "/account/setup",
  description:
    "Where the shop's setup stands. platform: { connected, domain } (the store platform connection). catalog: the catalog mirror the offer, inventory and back-in-stock calls look variants up in: " +
    "status (not_started: no sync has run; syncing: the first full sync is queued or running; failed: the latest sync failed before any full sync completed, and it is retried; ready: a full sync has completed, and incremental syncs keep it current), " +
    "last_synced_at and last_full_sync_at (start of the latest sync, of the latest full sync; null before one), variants_mirrored, products_mirrored, collections_mirrored, locations_mirrored, markets_mirrored (rows in the mirror now), " +
    "and sync_job (the latest catalog sync job: job_id, status_url, status, processed (variants so far), last_error, created_at, started_at, finished_at; null when none ran). " +
    `While a connected shop's catalog is not ready, calls that look variant or collection ids up in the mirror, or resolve over all of it, answer 409 \`${CATALOG_SYNC_IN_PROGRESS}\` rather than call an id unknown.`,
  kind: "read",
  input: z.strictObject({}),
  async handler(ctx) {
    return catalogReadiness(ctx.db, ctx.shopId);
  },
});
