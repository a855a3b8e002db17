/**
 * How long a message that failed for a reason that may pass (a server down, a timeout, SMTP 4xx,
 * a provider's 429 or 5xx) keeps being retried. Retries are graphile-worker's own: the send job
 * throws and graphile-worker runs it again after exp(min(attempts, 10)) seconds. This module only
 * turns a retry window into the job's max_attempts, so that the window holds however long the
 * backoff's steps are.
 */

/** The longest SEND_RETRY_HOURS the configuration accepts. */
export const MAX_SEND_RETRY_HOURS = 24 * 30;

/** graphile-worker's delay after failed attempt `attempt` (its fail_job: exp(least(attempts, 10)) seconds). */
function backoffSeconds(attempt: number): number {
  return Math.exp(Math.min(attempt, 10));
}

/** Seconds from the first attempt to the last one when a job has `maxAttempts` and every attempt fails. */
export function retrySpanSeconds(maxAttempts: number): number {
  let total = 0;
  for (let attempt = 1; attempt < maxAttempts; attempt++) total += backoffSeconds(attempt);
  return total;
}

/** The fewest attempts whose backoff spans at least `windowHours` from the first failure. */
export function sendAttemptsFor(windowHours: number): number {
  const window = windowHours * 3600;
  let attempts = 1;
  while (retrySpanSeconds(attempts) < window) attempts += 1;
  return attempts;
}

/** The reason a message failed for good after its retries, kept on its row and in the log. */
export function gaveUpReason(error: string, windowHours: number): string {
  return `still failing after ${windowHours} h of retries: ${error}`;
}
