import { readCart } from "./cart.ts";
import { el, insertAfter } from "./dom.ts";
import type { Signals } from "./signals.ts";

/**
 * An in-stock item added by the theme's own form, while the cart holds a preorder whose offer wants
 * no mixed cart: refused with that offer's message. The preorder line carries the message (the
 * hidden property `_preorder_mixed_cart`), since this page has no metafield of that offer.
 */
export function guardMixedCart(form: HTMLFormElement | null, anchor: Element | null, signals: Signals): () => void {
  if (!form) return () => undefined;
  let message: HTMLElement | undefined;
  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    void (async () => {
      const blocking = (await readCart()).find((line) => line.properties?._preorder_mixed_cart);
      if (!blocking) return form.submit();
      message?.remove();
      message = el("p", { class: "preorder-message", "data-kind": "error", role: "alert" }, [blocking.properties?._preorder_mixed_cart ?? ""]);
      insertAfter(anchor ?? form, message);
      signals.emit("preorder:refused", { variant_id: blocking.variant_id, reason: message.textContent });
    })();
  };
  form.addEventListener("submit", onSubmit);
  return () => {
    form.removeEventListener("submit", onSubmit);
    message?.remove();
  };
}
