import type { OutboundMessage } from "../channels/index.ts";
import type { Db } from "../core/db.ts";
import { type PreparedLayout, type RenderedMessage, layoutMessage, loadEmailLayout } from "./layout.ts";
import { withText } from "../messaging/render/message-text.ts";
import { type SenderIdentity, type SenderPolicy, applySenderIdentity, loadSenderIdentity } from "./sending.ts";

/**
 * Everything the Account area adds to an outgoing message of a shop, loaded once per shop and
 * applied per message: the sender identity (sending.ts) and the e-mail layout (layout.ts).
 *
 *   const account = await loadAccountMessaging(db, shopId, { senders: senderPolicy(config), shopUrl });
 *   message = dressMessage(renderedMessage, account);   // throws when the stored layout cannot render
 */
export interface AccountMessaging {
  identity: SenderIdentity;
  /** null: layout off; an Error: the stored layout no longer renders (each e-mail then fails with it). */
  layout: PreparedLayout | null | Error;
}

export async function loadAccountMessaging(db: Db, shopId: string, options: { senders: SenderPolicy; shopUrl: string }): Promise<AccountMessaging> {
  const identity = await loadSenderIdentity(db, shopId, options.senders);
  let layout: PreparedLayout | null | Error;
  try {
    layout = await loadEmailLayout(db, shopId, options.shopUrl);
  } catch (error) {
    layout = error instanceof Error ? error : new Error(String(error));
  }
  return { identity, layout };
}

/**
 * The rendered message as the shop sends it, but for an e-mail's text part where the layout
 * replaced the html (derived from the final html when the message is finished: withText, or on the
 * render pool, finishMessages): wrapped in the layout, from the shop's sender.
 */
export function dressRendered(message: RenderedMessage, account: AccountMessaging): RenderedMessage {
  if (account.layout instanceof Error && message.channel === "email") throw account.layout;
  const layout = account.layout instanceof Error ? null : account.layout;
  return applySenderIdentity(layoutMessage(message, layout), account.identity);
}

/** dressRendered, with the text part derived on this thread. */
export function dressMessage(message: RenderedMessage, account: AccountMessaging): OutboundMessage {
  return withText(dressRendered(message, account));
}
