import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applySenderIdentity } from "../src/account/sending.ts";
import { createTwilioSmsSender } from "../src/channels/sms-twilio.ts";

/** The form fields of each request a local stand-in for the Messages API received. */
const forms: Record<string, string>[] = [];
let server: http.Server;
let url = "";

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      forms.push(Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8"))));
      res.writeHead(201, { "content-type": "application/json" });
      res.end(JSON.stringify({ sid: `SM${String(forms.length).padStart(32, "0")}`, status: "queued" }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("the shop's SMS sender through the text-message provider", () => {
  it("an alphanumeric sender id goes as From (even one starting with MG); a Messaging Service SID as MessagingServiceSid", async () => {
    const sender = createTwilioSmsSender({ accountSid: `AC${"0".repeat(32)}`, authToken: "token-for-the-fake-api", from: "+15005550006", apiUrl: url });
    try {
      const base = { id: "ledger-sms-1", channel: "sms" as const, to: "+15551230000", text: "Back in stock" };
      const identity = { emailFrom: '"Shop" <a@shop.example>', replyTo: null };
      await sender.send(applySenderIdentity(base, { ...identity, smsFrom: "MG Shoes" }));
      await sender.send(applySenderIdentity({ ...base, id: "ledger-sms-2" }, { ...identity, smsFrom: null }));
      const sid = `MG${"a1".repeat(16)}`;
      await sender.send({ ...base, id: "ledger-sms-3", from: sid });
      expect(forms.map((f) => [f.From, f.MessagingServiceSid])).toEqual([
        ["MG Shoes", undefined],
        ["+15005550006", undefined],
        [undefined, sid],
      ]);
    } finally {
      await sender.close();
    }
  });
});
