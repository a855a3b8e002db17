import { CHANNELS, type Channel, type Stage } from "./default-templates.ts";
import { type VariableSamples, sampleData } from "../../messaging/render/variables-check.ts";

/**
 * What each back-in-stock stage's templates may use: its channels and its variables with their
 * sample values (render.ts gives the same names at send). The PATCH check, the preview and the
 * variables a GET lists all read this table.
 */

interface StageTemplates {
  channels: readonly Channel[];
  variables: VariableSamples;
}

/** Every stage writes about one signup's product: the same variables. */
const SIGNUP_VARIABLES: VariableSamples = {
  "shop.name": "Sample Store",
  "shop.url": "https://sample-store.example",
  "customer.first_name": "Alex",
  "customer.email": "alex@example.com",
  "customer.phone": "+15555550123",
  "product.title": "Sample Tee",
  "product.url": "https://sample-store.example/products/sample-tee",
  "product.image_url": "https://sample-store.example/tee.png",
  "variant.title": "Blue / M",
  "variant.sku": "TEE-BLU-M",
  "variant.price": "25.00",
  unsubscribe_url: "https://sample-store.example/unsubscribe/sample",
};

const BACK_IN_STOCK_STAGES: Record<Stage, StageTemplates> = {
  initial: { channels: CHANNELS, variables: SIGNUP_VARIABLES },
  reminder: { channels: CHANNELS, variables: SIGNUP_VARIABLES },
  signup_thank_you: { channels: CHANNELS, variables: SIGNUP_VARIABLES },
};

/** The names a stage's templates may use, in the table's order. */
export function stageVariables(stage: Stage): string[] {
  return Object.keys(BACK_IN_STOCK_STAGES[stage].variables);
}

/** The sample values a stage's templates are checked and previewed with. */
export function stageSample(stage: Stage): Record<string, unknown> {
  return sampleData(BACK_IN_STOCK_STAGES[stage].variables);
}
