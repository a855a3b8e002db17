import type { ChannelName } from "./types.ts";

/**
 * A send that failed. `retryable`: the same message may go through later (network, 5xx, 429,
 * SMTP 4xx); otherwise it never will (invalid address or number, SMTP 5xx, the SMS API's 4xx).
 * The message never carries credentials.
 */
export class ChannelError extends Error {
  readonly channel: ChannelName;
  readonly retryable: boolean;
  /** The provider's code when it gave one: an SMTP reply code, an API error code, or an errno name. */
  readonly providerCode: string | undefined;

  constructor(channel: ChannelName, message: string, retryable: boolean, providerCode?: string | number) {
    super(message);
    this.name = "ChannelError";
    this.channel = channel;
    this.retryable = retryable;
    this.providerCode = providerCode === undefined ? undefined : String(providerCode);
  }
}

export function isChannelError(error: unknown): error is ChannelError {
  return error instanceof ChannelError;
}

/** Removes the given secrets and any URL userinfo from a provider's text before it is kept. */
export function scrub(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text.replace(/\/\/[^/\s@]+@/g, "//[redacted]@");
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join("[redacted]");
  }
  return out.length > 500 ? `${out.slice(0, 500)}...` : out;
}
