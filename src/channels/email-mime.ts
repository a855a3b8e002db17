import { randomFillSync } from "node:crypto";
import addressparser from "nodemailer/lib/addressparser";
import { encodeWord, encodeWords, foldLines, quoteString } from "nodemailer/lib/mime-funcs";
import { toASCII } from "nodemailer/lib/punycode";
import { encode as qpEncode, wrap as qpWrap } from "nodemailer/lib/qp";
import { ChannelError } from "./errors.ts";
import { emailMessageId, mailAddressIssue } from "./email-message.ts";
import { assertMessageId } from "./outbox.ts";
import type { EmailAttachment, OutboundMessage } from "./types.ts";

/**
 * An alert as the SMTP server receives it (RFC 5322, MIME): composed in one pass, with
 * nodemailer's own encoders (encoded words, quoted-printable, line folding, address parsing), into
 * one buffer that nodemailer's pool sends as `raw`.
 *
 * Why not nodemailer's MailComposer: it builds each message as a tree of streams. Measured here
 * (bench:alerts), that is about 0.6 ms of the sending thread's CPU per e-mail, two thirds of
 * everything nodemailer spends on one, and it writes each message to the socket in a dozen small
 * chunks. Every shop's sends share that thread. This composer covers the only shapes the service sends:
 * a text part, or text and HTML alternatives, with a few headers of our own, and (the merchant's
 * scheduled reports) those as the first part of a multipart/mixed message with attached files.
 */

export interface ComposedEmail {
  /** The whole message, CRLF line ends. */
  raw: Buffer;
  envelope: { from: string; to: string[] };
  /** `<id@domain>`, as in the Message-ID header. */
  messageId: string;
}

/**
 * Random bytes drawn 4 KB at a time (one draw per message cost as much as the rest of its
 * headers): each boundary takes 12 of them, so no message's boundary can be foretold from
 * another's and written into a template or a customer's name to end a part early.
 */
const entropy = Buffer.alloc(4096);
let entropyUsed = entropy.length;

function boundary(): string {
  if (entropyUsed + 12 > entropy.length) {
    randomFillSync(entropy);
    entropyUsed = 0;
  }
  entropyUsed += 12;
  return `--_alt-${entropy.toString("hex", entropyUsed - 12, entropyUsed)}`;
}

/** Headers the composer writes itself: a message's own headers may not repeat them. */
const OWN_HEADERS = new Set(["content-type", "content-transfer-encoding", "mime-version", "from", "sender", "to", "cc", "bcc", "reply-to", "subject", "message-id", "date"]);

// eslint-disable-next-line no-control-regex -- header values must not carry control characters
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;
const LINE_BREAK = /\r?\n|\r/g;

/** An unstructured header value: one line, encoded words where it is not plain ASCII. */
function headerText(value: string): string {
  const line = value.replace(LINE_BREAK, " ");
  return CONTROL.test(line) ? encodeWord(line, "Q", 52) : encodeWords(line, "Q", 52, true);
}

/**
 * A display name as nodemailer writes it: bare, quoted, or an encoded word; and encoded whenever
 * it holds `=?`, so that a name written to look like an encoded word (`=?utf-8?q?security=40bank.example?=`)
 * reads as what it is, not as the address it spells.
 */
function displayName(name: string): string {
  if (name.includes("=?")) return encodeWord(name, "Q", 52);
  if (/^[\w ]*$/.test(name)) return name;
  if (/^[\x20-\x7e]*$/.test(name)) return quoteString(name);
  return encodeWord(name, "Q", 52);
}

interface Mailbox {
  readonly name: string;
  readonly address: string;
}

/**
 * The address with its domain in ASCII (punycode), or undefined when it is no address. The domain
 * is letters, digits, dots and hyphens (any script): no percent-escapes, brackets or ports that a
 * URL parser would rewrite into another host.
 */
function normalizeAddress(address: string): string | undefined {
  const at = address.lastIndexOf("@");
  // eslint-disable-next-line no-control-regex -- an address has no control characters
  if (at <= 0 || at === address.length - 1 || /[\s<>"\x00-\x1f\x7f]/.test(address)) return undefined;
  const domain = address.slice(at + 1);
  if (!/^[\p{L}\p{N}\p{M}-]+(\.[\p{L}\p{N}\p{M}-]+)*$/u.test(domain)) return undefined;
  return `${address.slice(0, at)}@${toASCII(domain)}`;
}

/** The first mailbox of an address header value (`"Shop" <a@b>` or `a@b`). */
function mailbox(value: string, field: string): Mailbox {
  const first = addressparser(value.replace(LINE_BREAK, " "), { flatten: true })[0];
  const address = first && "address" in first ? normalizeAddress(first.address) : undefined;
  if (!first || !address) throw new ChannelError("email", `Invalid ${field} address`, false, "invalid_address");
  return { name: first.name, address };
}

/** Senders parsed so far, by header value: every message of a shop has the same From (a few per process). */
const senders = new Map<string, Mailbox>();
const SENDERS_KEPT = 1_000;

/** The sender's mailbox, parsed once per value (addressparser was a third of composing a message's headers). */
function senderMailbox(value: string): Mailbox {
  let sender = senders.get(value);
  if (!sender) {
    sender = mailbox(value, "sender");
    if (senders.size >= SENDERS_KEPT) senders.clear();
    senders.set(value, sender);
  }
  return sender;
}

const formatMailbox = (m: Mailbox) => (m.name ? `${displayName(m.name)} <${m.address}>` : m.address);

/** More Latin letters than other characters beyond ASCII: quoted-printable is the shorter (MailComposer's rule). */
function mostlyLatin(text: string): boolean {
  let latin = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80 || (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d)) other++;
    else if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) latin++;
  }
  return other < latin;
}

/**
 * A body part's encoding: 7bit when it is short-lined ASCII; quoted-printable when it is mostly
 * Latin; base64 otherwise (a Cyrillic or CJK body is about half the size of its quoted-printable).
 */
function encodeBody(text: string): { encoding: string; body: string } {
  const crlf = text.replace(LINE_BREAK, "\r\n");
  // eslint-disable-next-line no-control-regex -- ASCII without NUL
  if (/^[\x01-\x7f]*$/.test(crlf) && !/[^\r\n]{77}/.test(crlf)) return { encoding: "7bit", body: crlf };
  if (mostlyLatin(crlf)) return { encoding: "quoted-printable", body: qpWrap(qpEncode(crlf), 76) };
  return { encoding: "base64", body: (Buffer.from(crlf, "utf8").toString("base64").match(/.{1,76}/g) ?? []).join("\r\n") };
}

function part(type: string, text: string): string {
  const { encoding, body } = encodeBody(text);
  return `Content-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: ${encoding}\r\n\r\n${body}`;
}

/** One attached file as a part of a multipart/mixed body (its boundary line first), base64 in 76-character lines. */
function attachmentPart(file: EmailAttachment, separator: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/.test(file.filename)) {
    throw new ChannelError("email", `Invalid attachment name: ${JSON.stringify(file.filename.slice(0, 40))}`, false);
  }
  if (!/^[a-z]+\/[a-z0-9.+-]+(; ?charset=[a-z0-9-]+)?$/i.test(file.contentType)) throw new ChannelError("email", "Invalid attachment type", false);
  const base64 = (typeof file.content === "string" ? Buffer.from(file.content, "utf8") : file.content).toString("base64");
  const lines = (base64.match(/.{1,76}/g) ?? []).join("\r\n");
  return `--${separator}\r\nContent-Type: ${file.contentType}; name="${file.filename}"\r\nContent-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename="${file.filename}"\r\n\r\n${lines}\r\n`;
}

/** Checks the message and composes it; a bad one is a non-retryable ChannelError. */
export function composeEmail(message: OutboundMessage, defaultFrom: string, date: Date = new Date()): ComposedEmail {
  if (message.channel !== "email") throw new ChannelError("email", `Not an e-mail message: ${message.channel}`, false);
  assertMessageId("email", message.id);
  const issue = mailAddressIssue(message.to);
  if (issue) throw issue;
  const fromValue = message.from ?? defaultFrom;
  const from = senderMailbox(fromValue);
  const to = mailbox(message.to, "recipient");
  const messageId = emailMessageId(message.id, from.address);

  const headers: [string, string][] = [];
  let body: string;
  if (message.html === undefined) {
    const { encoding, body: text } = encodeBody(message.text);
    headers.push(["Content-Type", "text/plain; charset=utf-8"], ["Content-Transfer-Encoding", encoding]);
    body = `${text}\r\n`;
  } else {
    const separator = boundary();
    headers.push(["Content-Type", `multipart/alternative; boundary="${separator}"`]);
    body = `--${separator}\r\n${part("text/plain", message.text)}\r\n--${separator}\r\n${part("text/html", message.html)}\r\n--${separator}--\r\n`;
  }
  if (message.attachments && message.attachments.length > 0) {
    // The body as the first part of a multipart/mixed message, each file after it in base64.
    const innerHead = headers.splice(0).map(([key, value]) => `${key}: ${value}`).join("\r\n");
    const mixed = boundary();
    const files = message.attachments.map((file) => attachmentPart(file, mixed)).join("");
    headers.push(["Content-Type", `multipart/mixed; boundary="${mixed}"`]);
    body = `--${mixed}\r\n${innerHead}\r\n\r\n${body}${files}--${mixed}--\r\n`;
  }
  headers.push(["From", formatMailbox(from)], ["To", formatMailbox(to)]);
  if (message.replyTo !== undefined) headers.push(["Reply-To", formatMailbox(mailbox(message.replyTo, "reply-to"))]);
  headers.push(["Subject", headerText(message.subject ?? "")]);
  for (const [key, value] of Object.entries(message.headers ?? {})) {
    if (!/^[A-Za-z0-9][A-Za-z0-9-]*$/.test(key) || OWN_HEADERS.has(key.toLowerCase())) {
      throw new ChannelError("email", `Invalid header name: ${JSON.stringify(key.slice(0, 40))}`, false);
    }
    headers.push([key, headerText(value)]);
  }
  headers.push(["Message-ID", messageId], ["Date", date.toUTCString().replace(/GMT/, "+0000")], ["MIME-Version", "1.0"]);
  const head = headers.map(([key, value]) => foldLines(`${key}: ${value}`, 76)).join("\r\n");
  return { raw: Buffer.from(`${head}\r\n\r\n${body}`, "utf8"), envelope: { from: from.address, to: [to.address] }, messageId };
}
