import { ChannelError, scrub } from "./errors.ts";
import { assertMessageId } from "./outbox.ts";
import type { OutboundMessage } from "./types.ts";

const E164 = /^\+[1-9]\d{6,14}$/;

interface SmsFields {
  to: string;
  from: string;
  body: string;
}

/** Checks a text message; a bad one is a non-retryable ChannelError. */
export function toSmsFields(message: OutboundMessage, defaultFrom: string): SmsFields {
  if (message.channel !== "sms") throw new ChannelError("sms", `Not a text message: ${message.channel}`, false);
  assertMessageId("sms", message.id);
  if (!E164.test(message.to)) throw new ChannelError("sms", "Invalid phone number: E.164 expected", false, "invalid_number");
  if (message.text.trim() === "") throw new ChannelError("sms", "Empty text message", false);
  return { to: message.to, from: message.from ?? defaultFrom, body: message.text };
}

/** Errno-style codes of a request that never got an answer: worth retrying. */
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ECONNABORTED", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "ERR_NETWORK", "ERR_SOCKET_CONNECTION_TIMEOUT"]);

/**
 * Classifies an error of the twilio client: an answer of 429 or 5xx and network failures retry;
 * any other 4xx (an invalid number, code 21211; a refused credential) does not.
 */
export function classifyTwilioError(error: unknown, secrets: readonly (string | undefined)[]): ChannelError {
  const e = (error ?? {}) as { status?: unknown; code?: unknown; message?: unknown };
  const text = scrub(typeof e.message === "string" && e.message !== "" ? e.message : "unknown error", secrets);
  if (typeof e.status === "number") {
    const retryable = e.status === 429 || e.status >= 500;
    const code = typeof e.code === "number" || typeof e.code === "string" ? e.code : undefined;
    return new ChannelError("sms", `SMS API answered ${e.status}${code === undefined ? "" : ` (code ${code})`}: ${text}`, retryable, code ?? e.status);
  }
  const code = typeof e.code === "string" ? e.code : undefined;
  if (code && NETWORK_CODES.has(code)) return new ChannelError("sms", `SMS API unreachable (${code})`, true, code);
  return new ChannelError("sms", `SMS API request failed${code ? ` (${code})` : ""}: ${text}`, true, code);
}
