import type { AppInstallation } from "../app-installation.ts";
import type { Events } from "../context.ts";
import type { Store } from "../store.ts";
import { inventoryLevelPayload, orderEditPayload, orderPayload, productPayload } from "./payloads.ts";
import type { WebhookSender } from "./sender.ts";

/**
 * Changes become webhooks when a sender is configured; without one they go nowhere. While the app
 * is uninstalled the store's topics are not sent (Shopify drops an app's subscriptions with its
 * installation); app/uninstalled and the compliance topics are.
 */
export function webhookEvents(store: Store, sender: WebhookSender | undefined, app: AppInstallation): Events {
  const subscribed = () => (app.isInstalled() ? sender : undefined);
  return {
    productUpdated: (product) => subscribed()?.send("products/update", productPayload(store, product)).id ?? null,
    inventoryLevelUpdated: (level) => subscribed()?.send("inventory_levels/update", inventoryLevelPayload(store, level)).id ?? null,
    orderEvent: (topic, order) => subscribed()?.send(topic, orderPayload(store, order)).id ?? null,
    orderEdited: (edit) => subscribed()?.send("orders/edited", orderEditPayload(edit)).id ?? null,
    appEvent: (topic, payload) => sender?.send(topic, payload).id ?? null,
  };
}
