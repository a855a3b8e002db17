import type { Config } from "../config.ts";
import type { Log } from "../logger.ts";
import { createOutboxEmailSender } from "./email-outbox.ts";
import { createSmtpEmailSender } from "./email-smtp.ts";
import { outboxDir } from "./outbox.ts";
import { TWILIO_STATUS_PATH, publicUrl } from "./public-url.ts";
import { createOutboxSmsSender } from "./sms-outbox.ts";
import { createTwilioSmsSender } from "./sms-twilio.ts";
import PQueue from "p-queue";
import type { ChannelName, ChannelSender } from "./types.ts";

export type { ChannelName, ChannelSender, OutboundMessage, SendResult } from "./types.ts";
export { ChannelError, isChannelError } from "./errors.ts";

export interface Channels {
  email: ChannelSender;
  sms: ChannelSender;
  /** The sender of a channel. */
  get(channel: ChannelName): ChannelSender;
  close(): Promise<void>;
}

type ChannelsConfig = Pick<
  Config,
  | "dataDir"
  | "PORT"
  | "PUBLIC_URL"
  | "SMTP_URL"
  | "SMTP_POOL_SIZE"
  | "EMAIL_FROM"
  | "TWILIO_ACCOUNT_SID"
  | "TWILIO_AUTH_TOKEN"
  | "TWILIO_FROM"
  | "TWILIO_API_URL"
>;

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "?";
  }
}

/**
 * The e-mail and text-message senders the configuration asks for: pooled SMTP when SMTP_URL is
 * set, the twilio client when TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are; otherwise files in
 * DATA_DIR/outbox. Create once per process and close on shutdown.
 */
export function createChannels(config: ChannelsConfig, log: Log): Channels {
  const dir = outboxDir(config.dataDir);
  const email = config.SMTP_URL
    ? createSmtpEmailSender({ url: config.SMTP_URL, poolSize: config.SMTP_POOL_SIZE, from: config.EMAIL_FROM }, log)
    : createOutboxEmailSender({ dir, from: config.EMAIL_FROM });
  let sms: ChannelSender;
  if (config.TWILIO_ACCOUNT_SID && config.TWILIO_AUTH_TOKEN) {
    if (!config.TWILIO_FROM) throw new Error("TWILIO_FROM is required when TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are set");
    sms = createTwilioSmsSender({
      accountSid: config.TWILIO_ACCOUNT_SID,
      authToken: config.TWILIO_AUTH_TOKEN,
      from: config.TWILIO_FROM,
      apiUrl: config.TWILIO_API_URL,
      statusCallbackUrl: `${publicUrl(config)}${TWILIO_STATUS_PATH}`,
    });
  } else {
    sms = createOutboxSmsSender({ dir, from: config.TWILIO_FROM ?? "outbox" });
  }
  log.info(
    {
      email: config.SMTP_URL ? `smtp ${hostOf(config.SMTP_URL)} (pool ${config.SMTP_POOL_SIZE})` : `outbox ${dir}`,
      sms: config.TWILIO_ACCOUNT_SID && config.TWILIO_AUTH_TOKEN ? `twilio ${config.TWILIO_API_URL ? hostOf(config.TWILIO_API_URL) : "api.twilio.com"}` : `outbox ${dir}`,
    },
    "channels",
  );
  const queued = { email: prioritized(email, config.SMTP_POOL_SIZE), sms: prioritized(sms, SMS_IN_FLIGHT) };
  return {
    email: queued.email,
    sms: queued.sms,
    get: (channel) => queued[channel],
    async close() {
      await Promise.all([queued.email.close(), queued.sms.close()]);
    },
  };
}

/** Text messages in flight at once per process (HTTP calls to the SMS API). */
const SMS_IN_FLIGHT = 16;

/**
 * The process's sends of one channel wait in one queue, at most `inFlight` at once (the SMTP
 * pool's connections), highest priority first. Without it every batch's sends wait in the
 * transport's own first-come queue, and a restock's first message to a customer queues behind
 * thousands of follow-ups of batches already under way.
 */
export function prioritized(sender: ChannelSender, inFlight: number): ChannelSender {
  const queue = new PQueue({ concurrency: inFlight });
  return {
    channel: sender.channel,
    send: (message, options) => queue.add(() => sender.send(message), { priority: options?.priority ?? 0 }),
    async close() {
      await queue.onIdle();
      await sender.close();
    },
  };
}
