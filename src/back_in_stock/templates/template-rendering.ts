import type { Issue } from "../../core/errors.ts";
import type { TemplateKind } from "../../messaging/render/limits.ts";
import { templateProblem as renderProblem } from "../../messaging/render/render.ts";

/** Variables every back-in-stock template can use; also listed in /help through the PATCH description. */
export const TEMPLATE_VARIABLES = [
  "shop.name",
  "shop.url",
  "customer.first_name",
  "customer.email",
  "customer.phone",
  "product.title",
  "product.url",
  "product.image_url",
  "variant.title",
  "variant.sku",
  "variant.price",
  "unsubscribe_url",
] as const;

export const SAMPLE_VARIABLES = {
  shop: { name: "Sample Store", url: "https://sample-store.example" },
  customer: { first_name: "Alex", email: "alex@example.com", phone: "+15555550123" },
  product: { title: "Sample Tee", url: "https://sample-store.example/products/sample-tee", image_url: "https://sample-store.example/tee.png" },
  variant: { title: "Blue / M", sku: "TEE-BLU-M", price: "25.00" },
  unsubscribe_url: "https://sample-store.example/unsubscribe/sample",
};

/**
 * Renders with the sample data, as a send would (the render pool, same engine, same limits): a
 * template that cannot render, or goes beyond a limit, is refused when saved. Answers the field's
 * 422 issue, or undefined when the template is fine.
 */
export function templateProblem(field: string, source: string, kind: TemplateKind): Promise<Issue | undefined> {
  return renderProblem(field, source, kind, SAMPLE_VARIABLES);
}
