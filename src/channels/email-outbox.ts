import nodemailer from "nodemailer";
import { toMailOptions } from "./email-message.ts";
import { ChannelError } from "./errors.ts";
import { writeOutboxFile } from "./outbox.ts";
import type { ChannelSender, OutboundMessage, SendResult } from "./types.ts";

export interface OutboxEmailOptions {
  /** `DATA_DIR/outbox`. */
  dir: string;
  from: string;
}

/** E-mail without a server: each message becomes `${id}.eml` in the outbox directory. */
export function createOutboxEmailSender(options: OutboxEmailOptions): ChannelSender {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" });
  return {
    channel: "email",
    async send(message: OutboundMessage): Promise<SendResult> {
      const mail = toMailOptions(message, options.from);
      let raw: Buffer;
      try {
        const info = await transport.sendMail(mail);
        if (!Buffer.isBuffer(info.message)) throw new Error("stream transport did not buffer the message");
        raw = info.message;
      } catch (error) {
        throw new ChannelError("email", `Could not compose the message: ${(error as Error).message}`, false);
      }
      await writeOutboxFile("email", options.dir, `${message.id}.eml`, raw);
      return { providerMessageId: mail.messageId, accepted: true };
    },
    async close() {
      transport.close();
    },
  };
}
