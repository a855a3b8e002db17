import { Readable } from "node:stream";

/**
 * A composed e-mail (email-mime.ts) in the shape nodemailer's pool reads from a message (its
 * transport API: `transporter.send(mail, callback)`, where smtp-pool and its pool-resource read
 * `mail.message.getHeader("message-id")`, `getEnvelope()`, `messageId()`, `createReadStream()`
 * and `mail.data.signal`, `dsn`, `requireTLSExtensionEnabled`).
 *
 * Why not `transport.sendMail({ raw })`: for a raw message nodemailer still builds a MailMessage,
 * runs its compile plugins (a MimeNode per message, with 32 random bytes for a boundary it never
 * writes), parses the envelope's addresses again, and streams the buffer through a pipeline of
 * three streams, whose AbortController makes a DOMException per message when it finishes.
 * Measured (bench:alerts, --cpu-prof): about a sixth of the worker's CPU per alert. The bytes on
 * the wire are the same: the raw buffer, dot-stuffed by the connection as before.
 */

export interface PoolMessage {
  data: Record<string, never>;
  message: {
    getHeader(key: string): string | undefined;
    getEnvelope(): { from: string; to: string[] };
    messageId(): string;
    createReadStream(): Readable;
  };
}

/** An address nodemailer's envelope normalization leaves as it is: a dot-atom local part at a lower-case ASCII host name. */
const UNCHANGED_ADDRESS = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?!xn--)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.(?!xn--)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;

/**
 * The message for the pool, or undefined when nodemailer would rewrite an envelope address (a
 * quoted or non-ASCII local part, an upper-case or internationalized domain): those go through
 * sendMail, so the envelope stays exactly what nodemailer makes of it.
 */
export function poolMessage(mail: { raw: Buffer; envelope: { from: string; to: string[] }; messageId: string }): PoolMessage | undefined {
  if (!UNCHANGED_ADDRESS.test(mail.envelope.from) || !mail.envelope.to.every((to) => UNCHANGED_ADDRESS.test(to))) return undefined;
  const { from, to } = mail.envelope;
  return {
    data: {},
    message: {
      getHeader: (key) => (key.toLowerCase() === "message-id" ? mail.messageId : undefined),
      // A new object each time, as the connection writes its results onto the envelope it sends.
      getEnvelope: () => ({ from, to: [...to] }),
      messageId: () => mail.messageId,
      // A new stream each time: the pool asks again when it moves the message to another connection.
      createReadStream: () => {
        const stream = new Readable({ read: () => undefined });
        stream.push(mail.raw);
        stream.push(null);
        return stream;
      },
    },
  };
}
