import type { Events } from "../context.ts";
import type { Store } from "../store.ts";
import { inventoryLevelPayload, orderEditPayload, orderPayload, productPayload } from "./payloads.ts";
import type { WebhookSender } from "./sender.ts";

/** Changes become webhooks when a sender is configured; without one they go nowhere. */
export function webhookEvents(store: Store, sender: WebhookSender | undefined): Events {
  return {
    productUpdated: (product) => sender?.send("products/update", productPayload(store, product)).id ?? null,
    inventoryLevelUpdated: (level) => sender?.send("inventory_levels/update", inventoryLevelPayload(store, level)).id ?? null,
    orderEvent: (topic, order) => sender?.send(topic, orderPayload(store, order)).id ?? null,
    orderEdited: (edit) => sender?.send("orders/edited", orderEditPayload(edit)).id ?? null,
    appEvent: (topic, payload) => sender?.send(topic, payload).id ?? null,
  };
}
