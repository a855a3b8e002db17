import { composedEmail } from "./composed-ahead.ts";
import { writeOutboxFile } from "./outbox.ts";
import type { ChannelSender, OutboundMessage, SendResult } from "./types.ts";

interface OutboxEmailOptions {
  /** `DATA_DIR/outbox`. */
  dir: string;
  from: string;
}

/** E-mail without a server: each message becomes `${id}.eml` in the outbox directory, the bytes SMTP would send. */
export function createOutboxEmailSender(options: OutboxEmailOptions): ChannelSender {
  return {
    channel: "email",
    async send(message: OutboundMessage): Promise<SendResult> {
      const mail = composedEmail(message, options.from);
      await writeOutboxFile("email", options.dir, `${message.id}.eml`, mail.raw);
      return { providerMessageId: mail.messageId, accepted: true };
    },
    async close() {},
  };
}
