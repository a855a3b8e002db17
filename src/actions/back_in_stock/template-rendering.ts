import { Liquid } from "liquidjs";

/** The store platform's own template language; unknown filters are errors, unknown variables render empty. */
const engine = new Liquid({ strictFilters: true, strictVariables: false, cache: 200 });

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

export async function renderTemplate(source: string, variables: Record<string, unknown>): Promise<string> {
  return (await engine.parseAndRender(source, variables)) as string;
}

/** Parses and renders with sample data: a template that cannot render is refused when saved, never at send time. */
export async function templateProblem(source: string): Promise<string | undefined> {
  try {
    await renderTemplate(source, SAMPLE_VARIABLES);
    return undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return message;
  }
}
