import { z } from "zod";
import { defineAction } from "../../core/action.ts";
import { timestampOutput } from "../../core/outputs.ts";
import { CATALOG_STATUSES, CATALOG_SYNC_IN_PROGRESS } from "../../catalog/readiness.ts";
import { type LoadBackInStockSetupFacts, SETUP_STEP_KEYS, setupChecklist } from "../setup.ts";

const count = z.int().min(0);

const setupOutput = z.strictObject({
  platform: z.strictObject({ connected: z.boolean(), domain: z.string().nullable() }),
  catalog: z.strictObject({
    status: z.enum(CATALOG_STATUSES),
    last_synced_at: timestampOutput.nullable(),
    last_full_sync_at: timestampOutput.nullable(),
    variants_mirrored: count,
    products_mirrored: count,
    collections_mirrored: count,
    locations_mirrored: count,
    markets_mirrored: count,
    sync_job: z
      .strictObject({
        job_id: z.string(),
        status_url: z.string(),
        status: z.string(),
        processed: count.describe("variants mirrored so far by this job"),
        last_error: z.string().nullable(),
        created_at: timestampOutput,
        started_at: timestampOutput.nullable(),
        finished_at: timestampOutput.nullable(),
      })
      .nullable(),
  }),
  steps: z.array(
    z.strictObject({
      key: z.enum(SETUP_STEP_KEYS),
      title: z.string(),
      done: z.boolean(),
      detail: z.string().describe("what the step's state is based on, or what to do next"),
    }),
  ),
  completed: count.describe("steps done"),
  total: count,
});

/** The checklist's action; the registry gives it the back-in-stock area's facts (account does not import that area). */
export function setupAction(loadBackInStock: LoadBackInStockSetupFacts) {
  return defineAction({
    name: "account.setup.get",
    method: "GET",
    path: "/account/setup",
    description:
      "Where the shop's setup stands: an onboarding checklist computed from facts on every read. steps: each { key, title, done, detail } for " +
      `${SETUP_STEP_KEYS.join(", ")}; completed and total count them. ` +
      "platform: { connected, domain } (the store platform connection). catalog: the catalog mirror the offer, inventory and back-in-stock calls look variants up in: " +
      "status (not_started: no sync has run; syncing: the first full sync is queued or running; failed: the latest sync failed before any full sync completed, and it is retried; ready: a full sync has completed, and incremental syncs keep it current), " +
      "last_synced_at and last_full_sync_at (start of the latest sync, of the latest full sync; null before one), variants_mirrored, products_mirrored, collections_mirrored, locations_mirrored, markets_mirrored (rows in the mirror now), " +
      "and sync_job (the latest catalog sync job: job_id, status_url, status, processed (variants so far), last_error, created_at, started_at, finished_at; null when none ran).",
    notes: [
      `While a connected shop's catalog is not ready, calls that look variant or collection ids up in the mirror, or resolve over all of it, answer 409 \`${CATALOG_SYNC_IN_PROGRESS}\` rather than call an id unknown.`,
      "Nothing here is stored: a step is done because of what the shop has (an offer, a saved template, a connection).",
    ],
    aliases: ["show the onboarding checklist", "how far is the shop setup", "is the catalog sync done"],
    kind: "read",
    input: z.strictObject({}),
    output: setupOutput,
    async handler(ctx) {
      return setupChecklist(ctx.db, ctx.shopId, loadBackInStock);
    },
  });
}
