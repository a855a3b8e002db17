import { z } from "zod";

/**
 * Default of WEBHOOK_MAX_AGE_SECONDS: how long after its trigger a delivery is still taken. The
 * platform retries a failed delivery for up to 4 hours and keeps its trigger time, so a shorter
 * window would turn an outage of ours into lost orders; replays of a body already received are
 * refused by its digest whatever its age (src/webhooks/intake.ts).
 */
export const DEFAULT_WEBHOOK_MAX_AGE_SECONDS = 5 * 60 * 60;

/** The platform's clock may run a little ahead of ours; more than this is not a clock, it is a lie. */
const CLOCK_SKEW_MS = 60_000;

const timestamp = z.iso.datetime({ offset: true });

/**
 * Checks the delivery's `X-Shopify-Triggered-At` against the window; answers the refusal's
 * message, or undefined when the delivery is fresh. The platform keeps the trigger time on its
 * retries, so the window must outlast its retry schedule.
 */
export function staleDelivery(triggeredAt: string, maxAgeSeconds: number, now = Date.now()): string | undefined {
  if (!timestamp.safeParse(triggeredAt).success) return "X-Shopify-Triggered-At must be an ISO 8601 timestamp";
  const at = Date.parse(triggeredAt);
  if (at > now + CLOCK_SKEW_MS) return "X-Shopify-Triggered-At is in the future";
  if (now - at > maxAgeSeconds * 1000) return `Webhook delivery is older than ${maxAgeSeconds} seconds`;
  return undefined;
}
