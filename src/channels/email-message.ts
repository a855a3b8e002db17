import type { NodemailerError } from "nodemailer";
import { ChannelError, scrub } from "./errors.ts";

const ADDRESS = /^[^\s@<>",;]+@[^\s@<>",;]+$/;

/** The domain of the sender's address, for Message-IDs: `Shop <a@shop.example>` gives `shop.example`. */
function senderDomain(from: string): string {
  const match = /@([^\s@<>]+)>?\s*$/.exec(from.trim());
  return match?.[1] ?? "localhost";
}

/** `<id@domain>`: deterministic, from the ledger row's id and the sender's domain. */
export function emailMessageId(id: string, from: string): string {
  return `<${id}@${senderDomain(from)}>`;
}

/** Why `to` cannot be an e-mail recipient (a non-retryable ChannelError), or undefined. */
export function mailAddressIssue(to: string): ChannelError | undefined {
  return ADDRESS.test(to) ? undefined : new ChannelError("email", "Invalid e-mail address", false, "invalid_address");
}

/** Failures that the same message would meet again: a bad envelope or content, or a setting. */
const PERMANENT_CODES = new Set(["EENVELOPE", "EMESSAGE", "EMAXRECIPIENTS", "ECONFIG", "EFILEACCESS", "EURLACCESS", "EOTP", "EREQUIRETLS"]);
/** The server refused our credentials: the operator can fix that, the message is not at fault. */
const CREDENTIAL_CODES = new Set(["EAUTH", "ENOAUTH", "EOAUTH2"]);

/**
 * Classifies a nodemailer error: an SMTP 4xx reply and connection failures (refused, reset,
 * timed out, TLS) retry; a 5xx reply (but 503) and a bad envelope do not.
 */
export function classifySmtpError(error: unknown, secrets: readonly (string | undefined)[]): ChannelError {
  const e = (error ?? {}) as NodemailerError;
  const code = typeof e.code === "string" ? e.code : undefined;
  const responseCode = typeof e.responseCode === "number" ? e.responseCode : undefined;
  const detail = scrub(e.response ?? e.message ?? "unknown error", secrets);
  if (code && CREDENTIAL_CODES.has(code)) {
    return new ChannelError("email", `SMTP authentication failed (${code}${responseCode ? ` ${responseCode}` : ""})`, true, responseCode ?? code);
  }
  if (responseCode !== undefined) {
    const permanent = typeof e.permanent === "boolean" ? e.permanent : responseCode >= 500 && responseCode !== 503;
    return new ChannelError("email", `SMTP ${permanent ? "refused" : "deferred"} the message: ${detail}`, !permanent, responseCode);
  }
  if (code && PERMANENT_CODES.has(code)) return new ChannelError("email", `Invalid message (${code}): ${detail}`, false, code);
  return new ChannelError("email", `SMTP unavailable${code ? ` (${code})` : ""}: ${detail}`, true, code);
}
