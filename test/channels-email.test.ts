import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import net from "node:net";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import nodemailer from "nodemailer";
import type MailMessage from "nodemailer/lib/mailer/mail-message";
import MimeNode from "nodemailer/lib/mime-node";
import type SMTPPool from "nodemailer/lib/smtp-pool";
import { SMTPServer, type SMTPServerAddress } from "smtp-server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ChannelError, type Channels, type OutboundMessage, createChannels } from "../src/channels/index.ts";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/logger.ts";
import { composeEmail } from "../src/channels/email-mime.ts";
import { poolMessage } from "../src/channels/email-pool-message.ts";

/** One message as the sink received it. */
interface Received {
  from: string;
  to: string[];
  raw: string;
}

interface Sink {
  port: number;
  received: Received[];
  /** Connections opened to the sink so far. */
  connections: number;
  /** Most connections open at once. */
  peakConnections: number;
  close(): Promise<void>;
}

/**
 * A local SMTP sink without TLS or required auth. Recipients decide the answer to RCPT TO:
 * `tempfail@...` gets 451 (transient), `reject@...` gets 550 (permanent).
 */
async function startSink(): Promise<Sink> {
  let open = 0;
  const sink: Omit<Sink, "close" | "port"> = { received: [], connections: 0, peakConnections: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onConnect(_session, callback) {
      sink.connections += 1;
      open += 1;
      sink.peakConnections = Math.max(sink.peakConnections, open);
      callback();
    },
    onClose() {
      open -= 1;
    },
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      if (address.address.startsWith("tempfail@")) {
        return callback(Object.assign(new Error("Mailbox busy, try again later"), { responseCode: 451 }));
      }
      if (address.address.startsWith("reject@")) {
        return callback(Object.assign(new Error("No such user here"), { responseCode: 550 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const mailFrom = session.envelope.mailFrom;
        sink.received.push({
          from: mailFrom ? mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return Object.assign(sink, { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
}

/** The value of a header in the message's top header block (unfolded). */
function header(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? "";
  const unfolded = head.replace(/\r?\n[ \t]+/g, " ");
  const match = new RegExp(`^${name}: (.*)$`, "im").exec(unfolded);
  return match?.[1]?.trim();
}

function emailMessage(id: string, to: string, overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    id,
    to,
    channel: "email",
    subject: `Back in stock ${id}`,
    text: `Plain body of ${id}`,
    html: `<p>HTML body of ${id}</p>`,
    headers: { "List-Unsubscribe": `<http://127.0.0.1/unsubscribe/${id}>` },
    ...overrides,
  };
}

const log = createLogger("silent");
let sink: Sink;
let tempDir: string;
let channels: Channels;

beforeAll(async () => {
  sink = await startSink();
  tempDir = await mkdtemp(path.join(os.tmpdir(), "channels-email-"));
  channels = createChannels(
    loadConfig({
      DATA_DIR: tempDir,
      SMTP_URL: `smtp://127.0.0.1:${sink.port}/?ignoreTLS=true`,
      SMTP_POOL_SIZE: "3",
      EMAIL_FROM: "Test Shop <alerts@shop.example>",
    }),
    log,
  );
});

afterAll(async () => {
  await channels.close();
  await sink.close();
  await rm(tempDir, { recursive: true, force: true });
});

afterEach(() => {
  sink.received.length = 0;
});

async function sendError(promise: Promise<unknown>): Promise<ChannelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChannelError);
  return error as ChannelError;
}

describe("e-mail over pooled SMTP", () => {
  it("delivers one message with its To, Subject, Message-ID from the id, headers and both parts", async () => {
    const result = await channels.email.send(emailMessage("ledger-0001", "ada@example.com"));
    expect(result).toEqual({ providerMessageId: "<ledger-0001@shop.example>", accepted: true });

    expect(sink.received).toHaveLength(1);
    const [mail] = sink.received;
    expect(mail?.to).toEqual(["ada@example.com"]);
    expect(mail?.from).toBe("alerts@shop.example");
    const raw = mail?.raw ?? "";
    expect(header(raw, "To")).toBe("ada@example.com");
    expect(header(raw, "From")).toBe("Test Shop <alerts@shop.example>");
    expect(header(raw, "Subject")).toBe("Back in stock ledger-0001");
    expect(header(raw, "Message-ID")).toBe("<ledger-0001@shop.example>");
    expect(header(raw, "List-Unsubscribe")).toBe("<http://127.0.0.1/unsubscribe/ledger-0001>");
    expect(header(raw, "Content-Type")).toMatch(/^multipart\/alternative/);
    expect(raw).toMatch(/Content-Type: text\/plain[^]*Plain body of ledger-0001/);
    expect(raw).toMatch(/Content-Type: text\/html[^]*<p>HTML body of ledger-0001<\/p>/);
  });

  it("delivers many concurrent messages over the pool, each once, on at most SMTP_POOL_SIZE connections", async () => {
    const connectionsBefore = sink.connections;
    const ids = Array.from({ length: 60 }, (_, i) => `bulk-${String(i).padStart(3, "0")}`);
    const results = await Promise.all(ids.map((id, i) => channels.email.send(emailMessage(id, `customer${i}@example.com`))));

    expect(results.every((r) => r.accepted)).toBe(true);
    expect(results.map((r) => r.providerMessageId).sort()).toEqual(ids.map((id) => `<${id}@shop.example>`));
    const messageIds = sink.received.map((m) => header(m.raw, "Message-ID")).sort();
    expect(messageIds).toEqual(ids.map((id) => `<${id}@shop.example>`));
    for (const m of sink.received) {
      const id = /<(bulk-\d+)@/.exec(header(m.raw, "Message-ID") ?? "")?.[1];
      expect(header(m.raw, "Subject")).toBe(`Back in stock ${id}`);
      expect(m.to).toEqual([`customer${Number(id?.slice(5))}@example.com`]);
    }
    expect(sink.peakConnections).toBeLessThanOrEqual(3);
    expect(sink.connections - connectionsBefore).toBeLessThanOrEqual(3);
  });

  it("classifies a 4xx refusal as retryable and a 5xx recipient rejection as not", async () => {
    const transient = await sendError(channels.email.send(emailMessage("ledger-tempfail", "tempfail@example.com")));
    expect(transient.retryable).toBe(true);
    expect(transient.providerCode).toBe("451");
    expect(transient.channel).toBe("email");

    const permanent = await sendError(channels.email.send(emailMessage("ledger-reject", "reject@example.com")));
    expect(permanent.retryable).toBe(false);
    expect(permanent.providerCode).toBe("550");
    expect(permanent.message).toMatch(/No such user/);

    expect(sink.received).toHaveLength(0);
    // The pool is still usable afterwards.
    expect((await channels.email.send(emailMessage("ledger-after", "grace@example.com"))).accepted).toBe(true);
    expect(sink.received).toHaveLength(1);
  });

  it("refuses an invalid address or message id without sending (not retryable)", async () => {
    const address = await sendError(channels.email.send(emailMessage("ledger-bad-address", "not-an-address")));
    expect(address.retryable).toBe(false);
    const id = await sendError(channels.email.send(emailMessage("../escape", "ada@example.com")));
    expect(id.retryable).toBe(false);
    expect(sink.received).toHaveLength(0);
  });

  it("classifies an unreachable server as retryable, with no credentials in the message", async () => {
    // A port that was just free: nothing listens there.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const down = createChannels(
      loadConfig({ DATA_DIR: tempDir, SMTP_URL: `smtp://mailuser:s3cret-pass@127.0.0.1:${port}/?ignoreTLS=true`, SMTP_POOL_SIZE: "1" }),
      log,
    );
    try {
      const error = await sendError(down.email.send(emailMessage("ledger-down", "ada@example.com")));
      expect(error.retryable).toBe(true);
      expect(error.message).not.toContain("s3cret-pass");
      expect(error.message).not.toContain("mailuser");
    } finally {
      await down.close();
    }
  });
});

describe("a composed e-mail handed straight to nodemailer's pool (email-pool-message.ts)", () => {
  it("reaches the server as the same bytes and envelope as sendMail({ raw }) delivers", async () => {
    const transport = nodemailer.createTransport({ url: `smtp://127.0.0.1:${sink.port}/?ignoreTLS=true`, pool: true, maxConnections: 1 });
    try {
      // A line that starts with a dot: the connection dot-stuffs both the same way.
      const message = emailMessage("pool-0001", "ada.lovelace+bis@example.com", { text: ".hidden\nline\n", html: "<p>Caf\u00e9</p>\n.<p>dot</p>" });
      const mail = composeEmail(message, "Test Shop <alerts@shop.example>");
      const prepared = poolMessage(mail);
      expect(prepared).toBeDefined();
      await transport.sendMail({ envelope: mail.envelope, raw: mail.raw, messageId: mail.messageId });
      await new Promise<void>((resolve, reject) => {
        transport.transporter.send(prepared as unknown as MailMessage<SMTPPool.SentMessageInfo>, (error) => (error ? reject(error) : resolve()));
      });
      const [viaSendMail, viaPool] = sink.received;
      expect(viaPool).toEqual(viaSendMail);
      expect(viaPool?.raw).toBe(mail.raw.toString("utf8"));
    } finally {
      transport.close();
    }
  });

  it("answers the envelope nodemailer would, and leaves every address it would rewrite to sendMail", () => {
    const envelopeOf = (from: string, to: string) => new MimeNode().setEnvelope({ from, to }).getEnvelope();
    for (const to of ["ada@example.com", "o'brien.x+tag@mail.shop-example.co.uk", "a_b-c@sub.example.org"]) {
      const prepared = poolMessage({ raw: Buffer.from(""), envelope: { from: "alerts@shop.example", to: [to] }, messageId: "<m@shop.example>" });
      expect(prepared?.message.getEnvelope()).toEqual(envelopeOf("alerts@shop.example", to));
    }
    // nodemailer lower-cases a domain, keeps a non-ASCII local part's domain in UTF-8, quotes a local part that is no dot-atom.
    for (const to of ["Ada@Example.COM", "j\u00fcrgen@xn--mller-kva.example", '"a b"@example.com', "a..b@example.com"]) {
      expect(poolMessage({ raw: Buffer.from(""), envelope: { from: "alerts@shop.example", to: [to] }, messageId: "<m@shop.example>" }), to).toBeUndefined();
    }
  });

  it("an address nodemailer rewrites still goes out through sendMail, with nodemailer's envelope", async () => {
    await channels.email.send(emailMessage("pool-0002", "Ada@Example.COM"));
    expect(sink.received.map((m) => m.to)).toEqual([["Ada@example.com"]]);
  });
});

describe("e-mail without SMTP_URL", () => {
  it("writes each message as DATA_DIR/outbox/{id}.eml, atomically", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "channels-outbox-"));
    const local = createChannels(loadConfig({ DATA_DIR: dir }), log);
    try {
      const result = await local.email.send(emailMessage("ledger-local-1", "ada@example.com"));
      expect(result).toEqual({ providerMessageId: "<ledger-local-1@localhost>", accepted: true });
      // A retry of the same row replaces the file rather than adding one.
      await local.email.send(emailMessage("ledger-local-1", "ada@example.com"));

      expect(await readdir(path.join(dir, "outbox"))).toEqual(["ledger-local-1.eml"]);
      const raw = await readFile(path.join(dir, "outbox", "ledger-local-1.eml"), "utf8");
      expect(header(raw, "From")).toBe("Demo Store <no-reply@localhost>");
      expect(header(raw, "To")).toBe("ada@example.com");
      expect(header(raw, "Subject")).toBe("Back in stock ledger-local-1");
      expect(header(raw, "Message-ID")).toBe("<ledger-local-1@localhost>");
      expect(header(raw, "List-Unsubscribe")).toBe("<http://127.0.0.1/unsubscribe/ledger-local-1>");
      expect(raw).toContain("Plain body of ledger-local-1");
      expect(raw).toContain("<p>HTML body of ledger-local-1</p>");
    } finally {
      await local.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
