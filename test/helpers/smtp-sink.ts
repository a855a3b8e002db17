import type { AddressInfo } from "node:net";
import { SMTPServer, type SMTPServerAddress } from "smtp-server";

/** One message as the sink received it. */
export interface SinkMessage {
  to: string;
  messageId: string;
  subject: string;
  raw: string;
}

export interface SmtpSink {
  url: string;
  messages: SinkMessage[];
  /** Messages by Message-ID, counting repeats. */
  byMessageId: Map<string, number>;
  /** Recipients to refuse with 451 (transient) this many more times. */
  tempFail: Map<string, number>;
  /** Recipients refused with 550 (permanent). */
  reject: Set<string>;
  /** An outage: while set, new connections are refused with 421 and recipients with 421 on open ones. */
  outage: { down: boolean };
  /** While `until` is set, a message's data is answered (and the message kept) only once it settles: sends hang in flight (`held` counts them). */
  hold: { until?: Promise<void>; held: number };
  /** Messages to `to`, in arrival order. */
  to(address: string): SinkMessage[];
  close(): Promise<void>;
}

/** A header of the message's top block, unfolded. */
export function header(raw: string, name: string): string | undefined {
  const head = (raw.split(/\r?\n\r?\n/)[0] ?? "").replace(/\r?\n[ \t]+/g, " ");
  const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

/** A local SMTP server on 127.0.0.1 and a free port, without TLS or auth, that keeps what it receives. */
export async function startSmtpSink(options: { keepRaw?: boolean } = {}): Promise<SmtpSink> {
  const keepRaw = options.keepRaw ?? true;
  const messages: SinkMessage[] = [];
  const byMessageId = new Map<string, number>();
  const tempFail = new Map<string, number>();
  const reject = new Set<string>();
  const outage = { down: false };
  const hold: { until?: Promise<void>; held: number } = { held: 0 };
  const serviceDown = () => Object.assign(new Error("Service not available, closing transmission channel"), { responseCode: 421 });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    maxClients: 100,
    onConnect(_session, callback) {
      callback(outage.down ? serviceDown() : undefined);
    },
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      if (outage.down) return callback(serviceDown());
      const to = address.address.toLowerCase();
      const left = tempFail.get(to) ?? 0;
      if (left > 0) {
        tempFail.set(to, left - 1);
        return callback(Object.assign(new Error("Mailbox busy, try again later"), { responseCode: 451 }));
      }
      if (reject.has(to)) return callback(Object.assign(new Error("No such user here"), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const accept = () => {
          const raw = Buffer.concat(chunks).toString("utf8");
          const messageId = header(raw, "Message-ID") ?? "";
          byMessageId.set(messageId, (byMessageId.get(messageId) ?? 0) + 1);
          messages.push({
            to: session.envelope.rcptTo[0]?.address.toLowerCase() ?? "",
            messageId,
            subject: header(raw, "Subject") ?? "",
            raw: keepRaw ? raw : "",
          });
          callback();
        };
        if (hold.until) {
          hold.held += 1;
          void hold.until.then(accept);
        }
        else accept();
      });
    },
  });
  server.on("error", () => undefined);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}?ignoreTLS=true`,
    messages,
    byMessageId,
    tempFail,
    reject,
    outage,
    hold,
    to: (address) => messages.filter((m) => m.to === address.toLowerCase()),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
