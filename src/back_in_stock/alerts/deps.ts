import type pg from "pg";
import type { Channels } from "../../channels/index.ts";
import type { Config } from "../../config.ts";
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

/** Task identifiers of the alert pipeline (graphile-worker). */
export const ALERT_TASKS = {
  run: "bis_alert_run",
  send: "bis_send",
  thankYou: "bis_send_thank_you",
  reminders: "bis_reminder_scan",
  inventoryCheck: "bis_inventory_check",
  recover: "bis_alert_recover",
  bulkNotify: "bis_bulk_notify",
} as const;

/** Attempts per message (the first send and its retries) before it is logged `failed`. */
export const MAX_SEND_ATTEMPTS = 5;

/** graphile-worker's own backoff, e^attempts seconds: the delay before retry number `attempts`. */
export function retryDelaySeconds(attempts: number): number {
  return Math.exp(Math.min(attempts, 10));
}
