import { el } from "./dom.ts";
import type { OfferConfig } from "./types.ts";

/** The offer's badge (text and colours), beside a price or on a collection card. */
export function badgeElement(offer: OfferConfig, text: string): HTMLElement {
  const badge = el("span", { class: "preorder-badge", "data-preorder-badge": offer.offer_id }, [text]);
  badge.style.color = offer.widget.badge.text_color;
  badge.style.backgroundColor = offer.widget.badge.background_color;
  badge.style.padding = "2px 8px";
  badge.style.marginLeft = "8px";
  badge.style.borderRadius = "999px";
  badge.style.fontSize = "0.8em";
  return badge;
}
