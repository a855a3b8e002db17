import type { Agent } from "node:https";
import twilio from "twilio";
import { classifyTwilioError, toSmsFields } from "./sms-message.ts";
import type { ChannelSender, OutboundMessage, SendResult } from "./types.ts";

interface TwilioSmsOptions {
  accountSid: string;
  authToken: string;
  /** A sender number (E.164), or a Messaging Service SID (`MG...`). */
  from: string;
  /** The API's base instead of https://api.twilio.com: a local fake in tests. */
  apiUrl?: string | undefined;
  /** Full URL of the status callback; `?ref=<message id>` is appended per message. */
  statusCallbackUrl?: string | undefined;
  timeoutMs?: number;
}

const NOT_ACCEPTED = new Set(["failed", "undelivered", "canceled"]);
const MESSAGING_SERVICE_SID = /^MG[0-9a-fA-F]{32}$/;

/** Text messages through the twilio client's Messages API. */
export function createTwilioSmsSender(options: TwilioSmsOptions): ChannelSender {
  const httpClient = new twilio.RequestClient({ timeout: options.timeoutMs ?? 30_000, keepAlive: true });
  // Retries are the caller's (with backoff, recorded in the ledger): the client's own stay off.
  const client = twilio(options.accountSid, options.authToken, { httpClient, autoRetry: false });
  if (options.apiUrl) client.api.baseUrl = options.apiUrl.replace(/\/+$/, "");
  const secrets = [options.authToken];
  return {
    channel: "sms",
    async send(message: OutboundMessage): Promise<SendResult> {
      const fields = toSmsFields(message, options.from);
      // A Messaging Service SID is MG and 32 hex digits: an alphanumeric sender id such as "MG Shoes" is a sender.
      const sender = MESSAGING_SERVICE_SID.test(fields.from) ? { messagingServiceSid: fields.from } : { from: fields.from };
      const statusCallback = options.statusCallbackUrl ? `${options.statusCallbackUrl}?ref=${encodeURIComponent(message.id)}` : undefined;
      try {
        const created = await client.messages.create({ to: fields.to, body: fields.body, ...sender, ...(statusCallback ? { statusCallback } : {}) });
        return { providerMessageId: created.sid, accepted: !NOT_ACCEPTED.has(created.status) };
      } catch (error) {
        throw classifyTwilioError(error, secrets);
      }
    },
    async close() {
      (httpClient.axios.defaults.httpsAgent as Agent | undefined)?.destroy();
    },
  };
}
