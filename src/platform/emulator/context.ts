import type { AppInstallation } from "./app-installation.ts";
import type { InventoryLevelView, Order, Product } from "./model.ts";
import type { Store } from "./store.ts";

export interface ShopInfo {
  readonly name: string;
  readonly domain: string;
  readonly currencyCode: string;
}

export type OrderTopic = "orders/create" | "orders/paid" | "orders/cancelled" | "orders/fulfilled" | "orders/updated";

/** An order edit as the orders/edited webhook tells it: the line items whose quantity went down, by how much. */
export interface OrderEditEvent {
  readonly id: number;
  readonly orderId: number;
  readonly createdAt: number;
  readonly removals: readonly { lineItemId: number; delta: number }[];
}

/** What a change tells the outside world: webhooks, when configured. Each answers the webhook id, or null. */
export interface Events {
  productUpdated(product: Product): string | null;
  inventoryLevelUpdated(level: InventoryLevelView): string | null;
  orderEvent(topic: OrderTopic, order: Order): string | null;
  orderEdited(edit: OrderEditEvent): string | null;
  /** The app's own lifecycle (app/uninstalled) and the compliance topics, with their payloads (webhooks/payloads.ts). */
  appEvent(topic: AppTopic, payload: unknown): string | null;
}

export type AppTopic = "app/uninstalled" | "customers/data_request" | "customers/redact" | "shop/redact";

/** What every resolver and admin route works on. */
export interface Context {
  readonly store: Store;
  readonly shop: ShopInfo;
  readonly events: Events;
  /** The calling app's API client id: its reserved metafield namespace `$app` is `app--<appId>`. */
  readonly appId: number;
  /** The app's access scopes, the Flow triggers it sent and the store's translations (app-installation.ts). */
  readonly app: AppInstallation;
}
