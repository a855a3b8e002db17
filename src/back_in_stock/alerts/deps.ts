import type pg from "pg";
import { z } from "zod";
import type { Channels } from "../../channels/index.ts";
import type { Config } from "../../config.ts";
import { declareTask } from "../../core/tasks.ts";
import type { Log } from "../../logger.ts";
import type { PlatformRuntime } from "../../platform/runtime.ts";

/** What the alert pipeline needs: the service's task deps, and the channels it sends through. */
export interface AlertDeps {
  pool: pg.Pool;
  log: Log;
  config: Config;
  platform: PlatformRuntime;
  /** The process's senders (one SMTP pool), built once at start. */
  channels: Channels;
}

// The alert pipeline's tasks that src/ queues (their runs: src/back_in_stock/alerts/jobs/tasks.ts).

/** One batch of a variant's alert run; the next batch is its own job, at its time. */
export const alertRunTask = declareTask({
  name: "bis_alert_run",
  payload: z.object({ shop_id: z.uuid(), variant_id: z.string().min(1), trigger: z.string().optional() }),
});
/**
 * A shop's restock burst (no job key, high priority): the first message of
 * every variant whose run a restock just opened, claimed in one statement and sent at once, so no
 * customer's first alert waits behind another variant's whole batch.
 */
export const restockBurstTask = declareTask({ name: "bis_restock_burst", payload: z.object({ shop_id: z.uuid() }) });
/** One claimed message (job key `bis_send:<ledger id>`). */
export const sendTask = declareTask({ name: "bis_send", payload: z.object({ ledger_id: z.uuid() }) });
/** The thank-you message of a new signup (job key `bis_send_thank_you:<signup id>`). */
export const thankYouTask = declareTask({ name: "bis_send_thank_you", payload: z.object({ signup_id: z.uuid() }) });
/** A sweep of what a killed worker left half-sent; `grace_seconds` (default 60) spares what is still fresh. */
export const alertRecoverTask = declareTask({ name: "bis_alert_recover", payload: z.object({ grace_seconds: z.number().min(0).optional() }).nullish() });
