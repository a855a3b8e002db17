import { el } from "./dom.ts";
import { ensureStyles } from "./styles.ts";
import type { OfferConfig } from "./types.ts";

/** The offer's badge (text and colours), beside a price or on a collection card. */
export function badgeElement(offer: OfferConfig, text: string): HTMLElement {
  ensureStyles();
  const badge = el("span", { class: "preorder-badge", "data-preorder-badge": offer.offer_id }, [text]);
  badge.style.color = offer.widget.badge.text_color;
  badge.style.backgroundColor = offer.widget.badge.background_color;
  return badge;
}
