import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import twilio from "twilio";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ChannelError, type Channels, type OutboundMessage, createChannels } from "../src/channels/index.ts";
import { loadConfig } from "../src/config.ts";
import { Dispatcher } from "../src/core/dispatcher.ts";
import { Registry } from "../src/core/registry.ts";
import { createHttpServer } from "../src/http/server.ts";
import { createLogger } from "../src/logger.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const ACCOUNT_SID = `AC${"0123456789abcdef".repeat(2)}`;
const AUTH_TOKEN = "test-auth-token-9f8e7d6c5b4a";
const FROM = "+15005550006";
/** What the provider was told this service's public address is; the signature covers it. */
const PUBLIC_URL = "https://bis.shop.example/svc";

/** One request the fake Messages API received. */
interface ApiRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  form: Record<string, string>;
}

/** What the fake answers to the next request. */
interface FakeReply {
  status: number;
  body: unknown;
}

interface FakeMessagesApi {
  url: string;
  requests: ApiRequest[];
  /** Answers to give, in order, before the default 201. */
  replies: FakeReply[];
  close(): Promise<void>;
}

/** A local stand-in for Twilio's `POST /2010-04-01/Accounts/{sid}/Messages.json`. */
async function startFakeMessagesApi(): Promise<FakeMessagesApi> {
  const fake: Omit<FakeMessagesApi, "url" | "close"> = { requests: [], replies: [] };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
      const pathOnly = (req.url ?? "").split("?")[0] ?? "";
      fake.requests.push({
        method: req.method ?? "",
        path: pathOnly,
        authorization: req.headers.authorization,
        contentType: req.headers["content-type"],
        form,
      });
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      const match = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(pathOnly);
      if (req.method !== "POST" || !match) return answer(404, { code: 20404, message: "The requested resource was not found", status: 404 });
      const next = fake.replies.shift();
      if (next) return answer(next.status, next.body);
      const sid = `SM${randomBytes(16).toString("hex")}`;
      answer(201, {
        sid,
        account_sid: match[1],
        to: form.To,
        from: form.From,
        body: form.Body,
        status: "queued",
        num_segments: "1",
        direction: "outbound-api",
        api_version: "2010-04-01",
        date_created: new Date().toUTCString(),
        uri: `/2010-04-01/Accounts/${match[1]}/Messages/${sid}.json`,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

function smsMessage(id: string, to = "+14155550123", text = `Back in stock: ${id}`): OutboundMessage {
  return { id, to, channel: "sms", text };
}

async function sendError(promise: Promise<unknown>): Promise<ChannelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChannelError);
  return error as ChannelError;
}

const log = createLogger("silent");
let fake: FakeMessagesApi;
let channels: Channels;
let tempDir: string;

beforeAll(async () => {
  fake = await startFakeMessagesApi();
  tempDir = await mkdtemp(path.join(os.tmpdir(), "channels-sms-"));
  channels = createChannels(
    loadConfig({
      DATA_DIR: tempDir,
      TWILIO_ACCOUNT_SID: ACCOUNT_SID,
      TWILIO_AUTH_TOKEN: AUTH_TOKEN,
      TWILIO_FROM: FROM,
      TWILIO_API_URL: fake.url,
      PUBLIC_URL,
    }),
    log,
  );
});

afterAll(async () => {
  await channels.close();
  await fake.close();
  await rm(tempDir, { recursive: true, force: true });
});

afterEach(() => {
  fake.requests.length = 0;
  fake.replies.length = 0;
});

describe("text messages through the twilio client", () => {
  it("posts To, From, Body and StatusCallback with basic auth to the Messages API", async () => {
    const result = await channels.sms.send(smsMessage("ledger-sms-1"));
    expect(result.accepted).toBe(true);
    expect(result.providerMessageId).toMatch(/^SM[0-9a-f]{32}$/);

    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe(`/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`);
    expect(request?.contentType).toMatch(/^application\/x-www-form-urlencoded/);
    expect(request?.authorization).toBe(`Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString("base64")}`);
    expect(request?.form).toEqual({
      To: "+14155550123",
      From: FROM,
      Body: "Back in stock: ledger-sms-1",
      StatusCallback: `${PUBLIC_URL}/webhooks/twilio/status?ref=ledger-sms-1`,
    });
  });

  it("classifies a 500 as retryable, and the retry then goes through", async () => {
    fake.replies.push({ status: 500, body: { code: 20500, message: "Internal Server Error", status: 500 } });
    const error = await sendError(channels.sms.send(smsMessage("ledger-sms-500")));
    expect(error.retryable).toBe(true);
    expect(error.channel).toBe("sms");
    expect(error.providerCode).toBe("20500");

    const retried = await channels.sms.send(smsMessage("ledger-sms-500"));
    expect(retried.accepted).toBe(true);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]?.form.Body).toBe("Back in stock: ledger-sms-500");
  });

  it("classifies a 429 as retryable", async () => {
    fake.replies.push({ status: 429, body: { code: 20429, message: "Too Many Requests", status: 429 } });
    const error = await sendError(channels.sms.send(smsMessage("ledger-sms-429")));
    expect(error.retryable).toBe(true);
  });

  it("classifies a 400 (21211, invalid number) as not retryable, with no credentials in the message", async () => {
    fake.replies.push({
      status: 400,
      body: { code: 21211, message: "The 'To' number +14155550100 is not a valid phone number.", more_info: "https://www.twilio.com/docs/errors/21211", status: 400 },
    });
    const error = await sendError(channels.sms.send(smsMessage("ledger-sms-400", "+14155550100")));
    expect(error.retryable).toBe(false);
    expect(error.providerCode).toBe("21211");
    expect(error.message).toMatch(/400.*21211.*not a valid phone number/);
    expect(error.message).not.toContain(AUTH_TOKEN);
  });

  it("refuses a number that is not E.164 without calling the API (not retryable)", async () => {
    const error = await sendError(channels.sms.send(smsMessage("ledger-sms-bad", "0123 456")));
    expect(error.retryable).toBe(false);
    expect(fake.requests).toHaveLength(0);
  });

  it("classifies an unreachable API as retryable", async () => {
    const closed = await startFakeMessagesApi();
    await closed.close();
    const down = createChannels(
      loadConfig({ DATA_DIR: tempDir, TWILIO_ACCOUNT_SID: ACCOUNT_SID, TWILIO_AUTH_TOKEN: AUTH_TOKEN, TWILIO_FROM: FROM, TWILIO_API_URL: closed.url }),
      log,
    );
    try {
      const error = await sendError(down.sms.send(smsMessage("ledger-sms-down")));
      expect(error.retryable).toBe(true);
      expect(error.message).not.toContain(AUTH_TOKEN);
    } finally {
      await down.close();
    }
  });
});

describe("text messages without Twilio configuration", () => {
  it("writes DATA_DIR/outbox/{id}.sms.json", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "channels-sms-outbox-"));
    const local = createChannels(loadConfig({ DATA_DIR: dir }), log);
    try {
      const result = await local.sms.send(smsMessage("ledger-sms-local"));
      expect(result).toEqual({ providerMessageId: "outbox:ledger-sms-local", accepted: true });
      expect(await readdir(path.join(dir, "outbox"))).toEqual(["ledger-sms-local.sms.json"]);
      const written = JSON.parse(await readFile(path.join(dir, "outbox", "ledger-sms-local.sms.json"), "utf8")) as Record<string, unknown>;
      expect(written).toMatchObject({ id: "ledger-sms-local", to: "+14155550123", body: "Back in stock: ledger-sms-local" });
      expect(fake.requests).toHaveLength(0);
    } finally {
      await local.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("POST /webhooks/twilio/status", () => {
  // Only the status route, on a registry without actions: the app is this block's own.
  const env = useTestEnv({ app: false, shop: true, poolSize: 3 });
  let app: FastifyInstance;
  let origin: string;

  beforeAll(async () => {
    const { config } = env;
    app = createHttpServer({
      dispatcher: new Dispatcher({ registry: new Registry([]), pool: env.pool, config, log }),
      twilioStatus: { pool: env.pool, authToken: AUTH_TOKEN, publicUrl: PUBLIC_URL },
      log,
      bodyLimit: config.BODY_LIMIT_BYTES,
      healthy: async () => true,
    });
    origin = await app.listen({ port: 0, host: "127.0.0.1" });
  });

  afterAll(async () => {
    await app.close();
  });

  /** A text message sent to a signup: its ledger row (the log's entry) with the provider's id; answers the row's id. */
  async function seedMessage(providerMessageId: string | null, ledgerId: string = randomUUID()): Promise<string> {
    const { rows } = await env.pool.query<{ id: string }>(
      `insert into bis_signups (shop_id, variant_id, product_id, channel, contact, status)
       values ($1, 'gid://shopify/ProductVariant/1', 'gid://shopify/Product/1', 'sms', $2, 'notified') returning id`,
      [env.shopId, `+1415555${String(Math.floor(Math.random() * 10_000)).padStart(4, "0")}`],
    );
    await env.pool.query(
      `insert into bis_ledger (id, shop_id, signup_id, stage, status, provider_message_id, sent_at, logged_at)
       values ($1, $2, $3, 'initial', 'sent', $4, now(), now())`,
      [ledgerId, env.shopId, rows[0]?.id, providerMessageId],
    );
    return ledgerId;
  }

  async function deliveryStatus(providerMessageId: string): Promise<string | null | undefined> {
    const { rows } = await env.pool.query<{ delivery_status: string | null }>(
      "select delivery_status from bis_notifications where provider_message_id = $1",
      [providerMessageId],
    );
    return rows[0]?.delivery_status;
  }

  /** Posts a callback to `pathAndQuery` as the provider would, signed with `token` over PUBLIC_URL + pathAndQuery. */
  async function callback(pathAndQuery: string, params: Record<string, string>, options: { token?: string; signature?: string | null; send?: Record<string, string> } = {}) {
    const signature = options.signature === undefined ? twilio.getExpectedTwilioSignature(options.token ?? AUTH_TOKEN, `${PUBLIC_URL}${pathAndQuery}`, params) : options.signature;
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
    if (signature !== null) headers["x-twilio-signature"] = signature;
    const response = await fetch(`${origin}${pathAndQuery}`, { method: "POST", headers, body: new URLSearchParams(options.send ?? params).toString() });
    return { status: response.status, text: await response.text() };
  }

  const statusParams = (sid: string, status: string) => ({
    AccountSid: ACCOUNT_SID,
    ApiVersion: "2010-04-01",
    From: FROM,
    To: "+14155550123",
    MessageSid: sid,
    SmsSid: sid,
    SmsStatus: status,
    MessageStatus: status,
  });

  it("records the status of a message sent through the sender, at the callback URL it gave", async () => {
    const ledgerId = randomUUID();
    const sent = await channels.sms.send(smsMessage(ledgerId));
    await seedMessage(sent.providerMessageId, ledgerId);
    const callbackUrl = new URL(fake.requests[0]?.form.StatusCallback ?? "");
    expect(callbackUrl.origin + callbackUrl.pathname).toBe(`${PUBLIC_URL}/webhooks/twilio/status`);
    // The proxy in front of the service forwards /svc/webhooks/... as /webhooks/...
    const pathAndQuery = `/webhooks/twilio/status${callbackUrl.search}`;

    expect(await callback(pathAndQuery, statusParams(sent.providerMessageId, "sent"))).toEqual({ status: 204, text: "" });
    expect(await deliveryStatus(sent.providerMessageId)).toBe("sent");
    expect((await callback(pathAndQuery, statusParams(sent.providerMessageId, "delivered"))).status).toBe(204);
    expect(await deliveryStatus(sent.providerMessageId)).toBe("delivered");
    // A late "sent" arriving after "delivered" does not step the status back.
    expect((await callback(pathAndQuery, statusParams(sent.providerMessageId, "sent"))).status).toBe(204);
    expect(await deliveryStatus(sent.providerMessageId)).toBe("delivered");
  });

  it("answers 403 to a bad, missing or tampered signature and changes nothing", async () => {
    const sid = `SM${randomBytes(16).toString("hex")}`;
    const path = `/webhooks/twilio/status?ref=${await seedMessage(sid)}`;
    const params = statusParams(sid, "failed");

    expect((await callback(path, params, { token: "some-other-token" })).status).toBe(403);
    expect((await callback(path, params, { signature: null })).status).toBe(403);
    expect((await callback(path, params, { signature: "bm90IGEgc2lnbmF0dXJl" })).status).toBe(403);
    // Signed for "delivered", sent as "failed".
    const signedDelivered = twilio.getExpectedTwilioSignature(AUTH_TOKEN, `${PUBLIC_URL}${path}`, statusParams(sid, "delivered"));
    expect((await callback(path, params, { signature: signedDelivered })).status).toBe(403);
    // Signed for another URL (query string differs).
    const otherUrl = twilio.getExpectedTwilioSignature(AUTH_TOKEN, `${PUBLIC_URL}/webhooks/twilio/status?ref=other`, params);
    expect((await callback(path, params, { signature: otherUrl })).status).toBe(403);

    expect(await deliveryStatus(sid)).toBeNull();
    // The same request, correctly signed, is recorded.
    expect((await callback(path, params)).status).toBe(204);
    expect(await deliveryStatus(sid)).toBe("failed");
  });

  it("records nothing on a message whose provider id is another's (a resend's new id) or without its ref", async () => {
    const sid = `SM${randomBytes(16).toString("hex")}`;
    const ledgerId = await seedMessage(sid);
    expect((await callback(`/webhooks/twilio/status?ref=${ledgerId}`, statusParams(`SM${randomBytes(16).toString("hex")}`, "delivered"))).status).toBe(204);
    expect((await callback("/webhooks/twilio/status", statusParams(sid, "delivered"))).status).toBe(204);
    expect(await deliveryStatus(sid)).toBeNull();
  });

  it("answers 204 for an unknown message and 400 without MessageSid", async () => {
    const path = "/webhooks/twilio/status";
    expect((await callback(path, statusParams(`SM${"0".repeat(32)}`, "delivered"))).status).toBe(204);
    expect((await callback(path, { AccountSid: ACCOUNT_SID, MessageStatus: "delivered" })).status).toBe(400);
  });
});
