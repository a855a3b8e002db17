import type { OutboundMessage, RenderedMessage } from "../../channels/types.ts";
import { htmlToText } from "./html-to-text.ts";

/** The message with its text part: as given, or derived from an e-mail's html (empty for a message with neither). */
export function withText(message: RenderedMessage): OutboundMessage {
  if (message.text !== undefined) return message as OutboundMessage;
  return { ...message, text: message.channel === "email" && message.html !== undefined ? htmlToText(message.html) : "" };
}
