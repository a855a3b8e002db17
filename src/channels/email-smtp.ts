import nodemailer from "nodemailer";
import type MailMessage from "nodemailer/lib/mailer/mail-message";
import type SMTPPool from "nodemailer/lib/smtp-pool";
import type { Log } from "../logger.ts";
import { classifySmtpError } from "./email-message.ts";
import { composedEmail } from "./composed-ahead.ts";
import { type PoolMessage, poolMessage } from "./email-pool-message.ts";
import type { ChannelSender, OutboundMessage, SendResult } from "./types.ts";

interface SmtpEmailOptions {
  /** `smtp://user:pass@host:587`, `smtps://...`; nodemailer's URL options (`?ignoreTLS=true`) apply. */
  url: string;
  /** Connections kept open to the server. */
  poolSize: number;
  /** Default sender, e.g. `Demo Store <no-reply@shop.example>`. */
  from: string;
}

/** The URL's password and user, kept out of every error message. */
function urlSecrets(url: string): string[] {
  try {
    const parsed = new URL(url);
    return [parsed.password, decodeURIComponent(parsed.password), parsed.username, decodeURIComponent(parsed.username)].filter((s) => s !== "");
  } catch {
    return [];
  }
}

/** E-mail over a pool of SMTP connections (nodemailer's pooled transport). */
export function createSmtpEmailSender(options: SmtpEmailOptions, log: Log): ChannelSender {
  const transport = nodemailer.createTransport({
    url: options.url,
    pool: true,
    maxConnections: options.poolSize,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
  });
  const secrets = urlSecrets(options.url);
  /** Straight to the pool (email-pool-message.ts): what sendMail would do for it is all overhead. */
  const sendPrepared = (prepared: PoolMessage) =>
    new Promise<SMTPPool.SentMessageInfo>((resolve, reject) => {
      // The pool reads only what PoolMessage has (see there); nodemailer's type is the whole MailMessage.
      transport.transporter.send(prepared as unknown as MailMessage<SMTPPool.SentMessageInfo>, (error, info) => {
        if (error) reject(error);
        else if (info) resolve(info);
        else reject(new Error("the SMTP pool answered nothing"));
      });
    });
  // A pool-level error has already failed the sends it concerns; keep it from crashing the process.
  transport.on("error", (error: Error) => log.warn({ error: classifySmtpError(error, secrets).message }, "SMTP pool error"));
  return {
    channel: "email",
    async send(message: OutboundMessage): Promise<SendResult> {
      const mail = composedEmail(message, options.from);
      const prepared = poolMessage(mail);
      let info: { accepted: unknown[] };
      try {
        // messageId: nodemailer otherwise draws a random one for the raw message's wrapper (unused).
        info = prepared ? await sendPrepared(prepared) : await transport.sendMail({ envelope: mail.envelope, raw: mail.raw, messageId: mail.messageId });
      } catch (error) {
        throw classifySmtpError(error, secrets);
      }
      // Not info.messageId: for a raw message nodemailer makes one up; ours is in the raw headers.
      return { providerMessageId: mail.messageId, accepted: info.accepted.length > 0 };
    },
    async close() {
      transport.close();
    },
  };
}
