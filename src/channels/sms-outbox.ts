import { writeOutboxFile } from "./outbox.ts";
import { toSmsFields } from "./sms-message.ts";
import type { ChannelSender, OutboundMessage, SendResult } from "./types.ts";

interface OutboxSmsOptions {
  /** `DATA_DIR/outbox`. */
  dir: string;
  from: string;
}

/** Text messages without a provider: each becomes `${id}.sms.json` in the outbox directory. */
export function createOutboxSmsSender(options: OutboxSmsOptions): ChannelSender {
  return {
    channel: "sms",
    async send(message: OutboundMessage): Promise<SendResult> {
      const fields = toSmsFields(message, options.from);
      const record = { id: message.id, ...fields, created_at: new Date().toISOString() };
      await writeOutboxFile("sms", options.dir, `${message.id}.sms.json`, `${JSON.stringify(record, null, 2)}\n`);
      return { providerMessageId: `outbox:${message.id}`, accepted: true };
    },
    async close() {},
  };
}
