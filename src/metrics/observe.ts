import type { DispatchObservation } from "../core/dispatcher.ts";
import { rateLimitRefusals, requestDuration } from "./registry.ts";

const NO_ACTION = "none";

/** The dispatcher's observer (DispatcherDeps.observe): latency per action and status class, 429s per action. */
export function observeDispatch({ action, status, seconds }: DispatchObservation): void {
  const name = action ?? NO_ACTION;
  requestDuration.observe({ action: name, status: `${Math.floor(status / 100)}xx` }, seconds);
  if (status === 429) rateLimitRefusals.inc({ action: name });
}
