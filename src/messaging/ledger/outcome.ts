import { type Channels, type OutboundMessage, isChannelError } from "../../channels/index.ts";
import { gaveUpReason, sendAttemptsFor } from "../retry.ts";

/**
 * What became of one message: `sent` (the server accepted it), `failed` (for good, with the
 * reason), `blocked` (refused, with the vocabulary's reason: ../blocked.ts), or `retry` (a
 * failure that may pass: recorded, and retried by graphile-worker). Never `sent` unless accepted.
 */
export type Outcome = "sent" | "failed" | "blocked" | "retry";

export interface Attempt {
  outcome: Exclude<Outcome, "blocked">;
  /** Whether the message reached a provider (attempts count only those). */
  attempted: boolean;
  provider_message_id?: string;
  error?: string;
  /** The rendered e-mail subject, for the logs. */
  subject?: string;
}

/**
 * What to do with a send that may succeed later: `job` records the attempt and queues the row's
 * own send job (batches: one failure never holds up the others), which graphile-worker then
 * retries with its backoff for SEND_RETRY_HOURS; `throw` records the attempt and throws
 * RetryLater, so the job that runs the send is retried (`lastAttempt`: fail it, with the reason).
 */
export type RetryPolicy = { mode: "job" } | { mode: "throw"; lastAttempt: boolean };

export class RetryLater extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RetryLater";
  }
}

/**
 * Whether a send job's attempt is its last within the SEND_RETRY_HOURS window (a job's own
 * max_attempts may cover a longer window: the configured one ends the retries sooner).
 */
export function isLastAttempt(job: { attempt: number; maxAttempts: number }, retryHours: number): boolean {
  return job.attempt >= Math.min(job.maxAttempts, sendAttemptsFor(retryHours));
}

/** Renders one message and sends it, and judges what happened; never throws. */
export async function attemptSend(
  channels: Channels,
  render: () => Promise<OutboundMessage>,
  options: { priority: number; lastAttempt: boolean; retryHours: number },
): Promise<Attempt> {
  let message: OutboundMessage;
  try {
    message = await render();
  } catch (error) {
    return { outcome: "failed", attempted: false, error: renderFailure(error) };
  }
  const subject = message.subject;
  try {
    const sent = await channels.get(message.channel).send(message, { priority: options.priority });
    return sent.accepted
      ? { outcome: "sent", attempted: true, provider_message_id: sent.providerMessageId, subject }
      : { outcome: "failed", attempted: true, provider_message_id: sent.providerMessageId, error: "The provider accepted no recipient", subject };
  } catch (error) {
    const retryable = isChannelError(error) ? error.retryable : true;
    const text = error instanceof Error ? error.message : String(error);
    if (!retryable) return { outcome: "failed", attempted: true, error: text, subject };
    if (options.lastAttempt) return { outcome: "failed", attempted: true, error: gaveUpReason(text, options.retryHours), subject };
    return { outcome: "retry", attempted: true, error: text, subject };
  }
}

/** A render failure as the logs show it: one line, prefixed once. */
function renderFailure(error: unknown): string {
  const text = error instanceof Error ? error.message.split("\n")[0] ?? "" : String(error);
  return text.startsWith("Template did not render: ") ? text : `Template did not render: ${text}`;
}
