import MailComposer from "nodemailer/lib/mail-composer";
import { describe, expect, it } from "vitest";
import { composeEmail } from "../src/channels/email-mime.ts";
import { isChannelError } from "../src/channels/errors.ts";
import type { OutboundMessage } from "../src/channels/types.ts";

/** A minimal reader of what composeEmail writes: headers (unfolded) and parts (decoded). */
function read(raw: string): { headers: Map<string, string>; body: string } {
  const split = raw.indexOf("\r\n\r\n");
  const headers = new Map<string, string>();
  for (const line of raw.slice(0, split).replace(/\r\n[ \t]/g, " ").split("\r\n")) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: raw.slice(split + 4) };
}

function decodePart(part: string): { type: string; text: string } {
  const { headers, body } = read(part);
  const encoding = headers.get("content-transfer-encoding");
  const text =
    encoding === "base64"
      ? Buffer.from(body.replace(/\r\n/g, ""), "base64").toString("utf8")
      : encoding === "quoted-printable"
      ? Buffer.from(
          body
            .replace(/=\r\n/g, "")
            .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
          "latin1",
        ).toString("utf8")
      : body;
  return { type: headers.get("content-type") ?? "", text: text.replace(/\r\n$/, "") };
}

function parts(raw: string): { type: string; text: string }[] {
  const { headers, body } = read(raw);
  const boundary = /boundary="([^"]+)"/.exec(headers.get("content-type") ?? "")?.[1];
  if (!boundary) return [decodePart(raw)];
  const [, ...rest] = body.split(`--${boundary}\r\n`);
  return rest.map((p) => decodePart(p.split(`\r\n--${boundary}--`)[0] ?? p));
}

/** RFC 2047 encoded words back to text (Q encoding, as written here). */
const decodeWords = (value: string) =>
  value
    .replace(/\?=\s+=\?UTF-8\?Q\?/g, "")
    .replace(/=\?UTF-8\?Q\?(.*?)\?=/g, (_m, q: string) =>
      Buffer.from(q.replace(/_/g, " ").replace(/=([0-9A-F]{2})/g, (_n, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))), "latin1").toString("utf8"),
    );

const message: OutboundMessage = {
  id: "0b6f2c1e-5d7a-4c1b-9a51-3f2b8e7d6c5a",
  channel: "email",
  to: "ana@example.com",
  from: '"Bench Shop" <no-reply@shop.example>',
  subject: "Bench Tee is back in stock",
  html: `<p>Hello Ana,</p><p>${"Bench Tee in size M is back. ".repeat(6)}</p><a href="https://shop.example/products/tee?variant=1">Buy now</a>`,
  text: `Hello Ana,\n\n${"Bench Tee in size M is back. ".repeat(6)}\n\nBuy now: https://shop.example/products/tee?variant=1`,
  headers: { "List-Unsubscribe": "<https://api.example/unsubscribe?signup=1&sig=abc>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
};

describe("composeEmail", () => {
  it("writes text and HTML alternatives, the headers, and the envelope; CRLF line ends, lines within 998 characters", () => {
    const mail = composeEmail(message, "Default <default@example.com>", new Date("2026-11-27T10:00:00Z"));
    const raw = mail.raw.toString("utf8");
    expect(raw).not.toMatch(/[^\r]\n/);
    expect(raw.split("\r\n").every((line) => line.length <= 998)).toBe(true);
    const { headers } = read(raw);
    expect(headers.get("from")).toBe("Bench Shop <no-reply@shop.example>");
    expect(headers.get("to")).toBe("ana@example.com");
    expect(headers.get("subject")).toBe("Bench Tee is back in stock");
    expect(headers.get("message-id")).toBe(`<${message.id}@shop.example>`);
    expect(headers.get("list-unsubscribe")).toBe("<https://api.example/unsubscribe?signup=1&sig=abc>");
    expect(headers.get("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    expect(headers.get("date")).toBe("Fri, 27 Nov 2026 10:00:00 +0000");
    expect(headers.get("mime-version")).toBe("1.0");
    expect(headers.get("content-type")).toMatch(/^multipart\/alternative; boundary="/);
    expect(parts(raw)).toEqual([
      { type: "text/plain; charset=utf-8", text: (message.text ?? "").replace(/\n/g, "\r\n") },
      { type: "text/html; charset=utf-8", text: message.html },
    ]);
    expect(mail.envelope).toEqual({ from: "no-reply@shop.example", to: ["ana@example.com"] });
    expect(mail.messageId).toBe(`<${message.id}@shop.example>`);
  });

  it("encodes what is not ASCII: the subject, a display name, a body (quoted-printable) and an international domain (punycode)", () => {
    const mail = composeEmail(
      { ...message, to: "jürgen@bücher.example", from: '"Bücherstube Köln" <shop@bücher.example>', subject: "Ihr Wunschartikel ist zurück – jetzt kaufen", html: "<p>Grüße</p>", text: "Grüße" },
      "x@example.com",
    );
    const raw = mail.raw.toString("utf8");
    // Only the recipient's own name stays as it is (its server must take SMTPUTF8, as with nodemailer).
    expect(raw.replace("jürgen", "")).toMatch(/^[\x20-\x7e\r\n\t]*$/s);
    const { headers } = read(raw);
    expect(headers.get("message-id")).toBe(`<${message.id}@xn--bcher-kva.example>`);
    expect(headers.get("subject")).toMatch(/=\?UTF-8\?Q\?/);
    expect(decodeWords(headers.get("subject") ?? "")).toBe("Ihr Wunschartikel ist zurück – jetzt kaufen");
    expect(decodeWords(headers.get("from") ?? "")).toBe("Bücherstube Köln <shop@xn--bcher-kva.example>");
    expect(headers.get("to")).toBe("jürgen@xn--bcher-kva.example");
    expect(mail.envelope.to).toEqual(["jürgen@xn--bcher-kva.example"]);
    expect(parts(raw).map((p) => p.text)).toEqual(["Grüße", "<p>Grüße</p>"]);
  });

  it("keeps every header on its line: a line break in a value cannot start a header of its own", () => {
    const raw = composeEmail(
      { ...message, subject: "Back\r\nBcc: victim@example.com", headers: { "List-Unsubscribe": "<https://x>\nBcc: victim@example.com" } },
      "x@example.com",
    ).raw.toString("utf8");
    const head = raw.slice(0, raw.indexOf("\r\n\r\n"));
    expect(head).not.toMatch(/^Bcc:/im);
    expect(read(raw).headers.get("subject")).toBe("Back Bcc: victim@example.com");
  });

  it("draws each message's boundary at random: one message's tells nothing of the next's", () => {
    const boundaryOf = (raw: Buffer) => /boundary="([^"]+)"/.exec(raw.toString("utf8"))?.[1] ?? "";
    const first = boundaryOf(composeEmail(message, "x@example.com").raw);
    const second = boundaryOf(composeEmail(message, "x@example.com").raw);
    expect(first).toMatch(/^--_alt-[0-9a-f]{24}$/);
    expect(second).toMatch(/^--_alt-[0-9a-f]{24}$/);
    // Apart by more than a counter: their random parts differ from the start.
    expect(first.slice(0, 17)).not.toBe(second.slice(0, 17));
  });

  it("writes a display name that looks like an encoded word as an encoded word of itself", () => {
    const name = "=?utf-8?q?security=40bank.example?=";
    const raw = composeEmail({ ...message, from: `"${name}" <no-reply@shop.example>` }, "x@example.com").raw.toString("utf8");
    const from = read(raw).headers.get("from") ?? "";
    expect(from).not.toContain(name);
    expect(decodeWords(from)).toBe(`${name} <no-reply@shop.example>`);
  });

  it("takes a domain as it is written: no percent-escapes or address literals a URL parser would turn into another host", () => {
    const recipient = (to: string) => {
      try {
        return composeEmail({ ...message, to }, "x@example.com").envelope.to[0];
      } catch (error) {
        return isChannelError(error) ? "refused" : String(error);
      }
    };
    expect(recipient("a@ex%61mple.com")).toBe("refused");
    expect(recipient("a@[127.0.0.1]")).toBe("refused");
    expect(recipient("a@example..com")).toBe("refused");
    expect(recipient("a@0x7f.1")).toBe("a@0x7f.1");
    expect(recipient("a@Example.COM")).toBe("a@Example.COM");
  });

  it("writes a mostly non-Latin body in base64, about half the size of its quoted-printable", () => {
    const text = "Товар снова в наличии. Купите сейчас, пока он не закончился! ".repeat(10);
    const mail = composeEmail({ ...message, text, html: `<p>${text}</p>` }, "x@example.com");
    const raw = mail.raw.toString("utf8");
    expect(raw.match(/Content-Transfer-Encoding: base64/g)).toHaveLength(2);
    expect(parts(raw).map((p) => p.text)).toEqual([text, `<p>${text}</p>`]);
    expect(raw.split("\r\n").every((line) => line.length <= 76 || line.startsWith("Content-Type"))).toBe(true);
  });

  it("sends a text message body alone when there is no HTML", () => {
    const raw = composeEmail({ ...message, html: undefined, text: "Plain words" }, "x@example.com").raw.toString("utf8");
    expect(read(raw).headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(parts(raw)).toEqual([{ type: "text/plain; charset=utf-8", text: "Plain words" }]);
  });

  it("refuses, for good, a message that cannot be sent: a bad recipient, sender, id or header name", () => {
    const refusal = (m: OutboundMessage, from = "x@example.com") => {
      try {
        composeEmail(m, from);
      } catch (error) {
        return isChannelError(error) ? { retryable: error.retryable, message: error.message } : { retryable: undefined, message: String(error) };
      }
      return undefined;
    };
    expect(refusal({ ...message, to: "not an address" })).toEqual({ retryable: false, message: "Invalid e-mail address" });
    expect(refusal({ ...message, from: undefined }, "nobody")).toEqual({ retryable: false, message: "Invalid sender address" });
    expect(refusal({ ...message, id: "../etc/passwd" })?.retryable).toBe(false);
    expect(refusal({ ...message, headers: { "Bad Header": "x" } })?.retryable).toBe(false);
    // A header the composer writes itself is not written twice.
    expect(refusal({ ...message, headers: { Bcc: "victim@example.com" } })?.retryable).toBe(false);
    expect(refusal({ ...message, headers: { "message-id": "<other@example.com>" } })?.retryable).toBe(false);
    expect(refusal({ ...message, channel: "sms" })?.retryable).toBe(false);
  });

  it("says what nodemailer's MailComposer says: the same headers and the same decoded parts", async () => {
    const ours = composeEmail(message, "x@example.com", new Date("2026-11-27T10:00:00Z")).raw.toString("utf8");
    const theirs = (
      await new MailComposer({
        from: message.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        messageId: `<${message.id}@shop.example>`,
        date: new Date("2026-11-27T10:00:00Z"),
        headers: message.headers,
      })
        .compile()
        .build()
    ).toString("utf8");
    const headerSet = (raw: string) => {
      const { headers } = read(raw);
      headers.delete("content-type");
      return Object.fromEntries(headers);
    };
    expect(headerSet(ours)).toEqual(headerSet(theirs));
    // MailComposer leaves line ends as given (its transports convert them); ours are CRLF already.
    const lf = (list: { type: string; text: string }[]) => list.map((p) => ({ ...p, text: p.text.replace(/\r\n/g, "\n") }));
    expect(lf(parts(ours))).toEqual(lf(parts(theirs)));
  });
});
