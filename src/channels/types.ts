/** The two ways a customer is reached. */
export type ChannelName = "email" | "sms";

/** One message to one recipient, ready to send: rendered, addressed and identified. */
export interface OutboundMessage {
  /**
   * Deterministic, derived from the ledger row: the e-mail's Message-ID (`<id@domain>`), the
   * outbox file's name and the SMS's reference, so a retry after a crash is recognisable.
   * Letters, digits, `.`, `_` and `-` only.
   */
  id: string;
  /** An e-mail address or an E.164 number. */
  to: string;
  channel: ChannelName;
  subject?: string;
  html?: string;
  /** The plain-text body; the whole body of a text message. */
  text: string;
  /** Overrides the configured sender (EMAIL_FROM or TWILIO_FROM). */
  from?: string;
  /** E-mail only: the Reply-To address. */
  replyTo?: string;
  /** Extra e-mail headers, e.g. List-Unsubscribe. */
  headers?: Record<string, string>;
  /** E-mail only: files sent with the message (a scheduled report's CSV). */
  attachments?: readonly EmailAttachment[];
}

/** A file attached to an e-mail: its name (letters, digits, `.`, `_`, `-`), MIME type and content. */
export interface EmailAttachment {
  filename: string;
  contentType: string;
  content: string | Buffer;
}

export interface SendResult {
  /** The e-mail's Message-ID, the provider's message SID, or the outbox file's reference. */
  providerMessageId: string;
  accepted: boolean;
}

export interface SendOptions {
  /**
   * Higher goes first when the channel's connections are all busy: a restock's first message to
   * each customer goes ahead of the follow-ups of batches already under way.
   */
  priority?: number;
}

export interface ChannelSender {
  readonly channel: ChannelName;
  /** Sends one message; throws a ChannelError that says whether a retry may succeed. */
  send(message: OutboundMessage, options?: SendOptions): Promise<SendResult>;
  /** Lets messages in flight finish and releases connections. */
  close(): Promise<void>;
}

/**
 * A message as a sender renders it, before it is finished: an e-mail's text part may be left out,
 * to be derived once from the html it is sent with (htmlToText is a large part of a message's CPU,
 * and a layout replaces the body's html, so deriving it before would be thrown away).
 */
export type RenderedMessage = Omit<OutboundMessage, "text"> & { text?: string };
