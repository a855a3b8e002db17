import { badgeElement } from "./badge.ts";
import { pickAll, readJson } from "./dom.ts";
import { displayLocale, offerFor, onPreorder, translate } from "./offer.ts";
import type { Signals } from "./signals.ts";
import type { EmbedData, ProductData } from "./types.ts";

const DEFAULT_CARD = "[data-product-card]";

/**
 * A collection page: each product card (the developer settings' collection_product_card selector)
 * whose product has a variant on an offer with a badge gets that badge, when the shop shows badges
 * on collection pages.
 */
export function mountCollectionPage(embed: EmbedData, signals: Signals, now: number): void {
  if (!(embed.shop?.storefront.show_badge_on_collection_pages ?? true)) return signals.debug("collection badges are off");
  const locale = displayLocale(embed);
  const cards = pickAll(document, embed.shop?.developer.selectors.collection_product_card, DEFAULT_CARD);
  signals.debug("collection page", { cards: cards.length });
  for (const card of cards) {
    const product = readJson<ProductData>(card.querySelector("script[data-preorder-product]"));
    if (!product) continue;
    const offer = product.variants
      .map((v) => {
        const found = offerFor(v, embed, now);
        return found && onPreorder(found, v) ? found : undefined;
      })
      .find((o) => o?.widget.badge.enabled);
    if (!offer) continue;
    const badge = badgeElement(offer, translate(offer, locale, "widget.badge.text", offer.widget.badge.text));
    (card.querySelector("[data-card-title], h2, h3") ?? card).append(badge);
  }
}
