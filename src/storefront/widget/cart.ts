/** The storefront's cart API (the theme's Ajax API), relative to the shop's origin. */

export interface CartLine {
  variant_id: number;
  quantity: number;
  selling_plan_allocation?: { selling_plan: { id: number } } | null;
  properties?: Record<string, string> | null;
}

export async function readCart(): Promise<CartLine[]> {
  const response = await fetch("/cart.js", { headers: { accept: "application/json" }, credentials: "same-origin" });
  if (!response.ok) return [];
  const cart = (await response.json()) as { items?: CartLine[] };
  return cart.items ?? [];
}

export interface AddLine {
  id: number;
  quantity: number;
  selling_plan?: number;
  properties?: Record<string, string>;
}

/** Adds the line; answers the platform's error description when it refuses. */
export async function addToCart(line: AddLine): Promise<{ ok: true } | { ok: false; message: string }> {
  const response = await fetch("/cart/add.js", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    credentials: "same-origin",
    body: JSON.stringify(line),
  });
  if (response.ok) return { ok: true };
  const body = (await response.json().catch(() => ({}))) as { description?: string; message?: string };
  return { ok: false, message: body.description ?? body.message ?? `The cart answered ${response.status}` };
}
