import { type VariableSamples, sampleData } from "../../messaging/render/variables-check.ts";
import { NOTIFICATION_CHANNELS, type NotificationChannel, type NotificationStage } from "./templates.ts";

/**
 * What each preorder notification stage's templates may use: its channels and its variables with
 * their sample values (ledger.ts gives the same names at send). The PATCH check and the variables
 * a GET lists read this table.
 */

interface StageTemplates {
  channels: readonly NotificationChannel[];
  variables: VariableSamples;
}

/** What every notification knows: the shop, the customer, the order, its offer, delivery and balance. */
const ORDER_VARIABLES: VariableSamples = {
  "shop.name": "Sample Store",
  "shop.url": "https://sample-store.example",
  "customer.email": "alex@example.com",
  "customer.phone": "+15555550123",
  "order.name": "#1001",
  "order.currency": "USD",
  "order.total_price": "120.00",
  "order.status": "awaiting_balance",
  "offer.name": "Spring drop",
  "product.title": "Linen shirt",
  "delivery.type": "on_date",
  "delivery.date": "2026-12-01",
  "delivery.days": null,
  "balance.amount": "60.00",
  "balance.due_date": "2026-11-20",
  "balance.auto_collect": true,
};

/** Only a change of shipping date has a delivery before it; elsewhere previous_delivery is empty. */
const PREVIOUS_DELIVERY: VariableSamples = {
  "previous_delivery.type": "asap",
  "previous_delivery.date": "",
  "previous_delivery.days": 14,
};

const PREORDER_NOTIFICATION_STAGES: Record<NotificationStage, StageTemplates> = {
  confirmation: { channels: NOTIFICATION_CHANNELS, variables: ORDER_VARIABLES },
  shipping_date_change: { channels: NOTIFICATION_CHANNELS, variables: { ...ORDER_VARIABLES, ...PREVIOUS_DELIVERY } },
  balance_due: { channels: NOTIFICATION_CHANNELS, variables: ORDER_VARIABLES },
  payment_request: { channels: NOTIFICATION_CHANNELS, variables: { ...ORDER_VARIABLES, "balance.payment_url": "https://sample-store.example/orders/1001/pay?key=3f2a" } },
};

/** The names a stage's templates may use, in the table's order. */
export function stageVariables(stage: NotificationStage): string[] {
  return Object.keys(PREORDER_NOTIFICATION_STAGES[stage].variables);
}

/** The sample values a stage's templates are checked with. */
export function stageSample(stage: NotificationStage): Record<string, unknown> {
  return sampleData(PREORDER_NOTIFICATION_STAGES[stage].variables);
}
