import { type ComposedEmail, composeEmail } from "./email-mime.ts";
import type { OutboundMessage } from "./types.ts";

/**
 * E-mails composed ahead, off the sending thread (the render pool: src/messaging/render/finish.ts),
 * by the message they were composed from. Kept beside the message, not in it: a message changed
 * after it was composed is a new object (every step of the pipeline spreads it), which has no
 * entry here and is composed again at its send; and the message it was composed from is frozen.
 */
const ahead = new WeakMap<OutboundMessage, ComposedEmail>();

/**
 * Records `composed` as the MIME of `message`, which must be what composeEmail composes of it
 * with its own `from` (set), and freezes the message and its headers so the two cannot part.
 */
export function keepComposed(message: OutboundMessage, composed: ComposedEmail): OutboundMessage {
  if (message.from === undefined) throw new Error("an e-mail composed ahead needs its own from");
  if (message.headers) Object.freeze(message.headers);
  ahead.set(Object.freeze(message), composed);
  return message;
}

/** The message as the SMTP server receives it: as composed ahead, or composed now. */
export function composedEmail(message: OutboundMessage, defaultFrom: string): ComposedEmail {
  return ahead.get(message) ?? composeEmail(message, defaultFrom);
}

/** Whether the message was composed ahead (for tests and diagnostics). */
export const isComposedAhead = (message: OutboundMessage): boolean => ahead.has(message);
