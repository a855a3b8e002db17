import { badgeElement } from "./badge.ts";
import { pickAll, readJson } from "./dom.ts";
import { displayLocale, offerFor, onPreorder, translate } from "./offer.ts";
import type { Signals } from "./signals.ts";
import type { EmbedData, ProductData } from "./types.ts";

const DEFAULT_CARD = "[data-product-card]";

/** `/products/<handle>` in a link's path (also under `/collections/<c>/` or a locale prefix). */
const PRODUCT_PATH = /\/products\/([^/?#]+)/;

/**
 * The product of a card from the app embed's list of the collection's products: the first link in
 * the card to a product page on the list (a theme's card renders no app data of its own).
 */
function cardProduct(card: HTMLElement, listed: ReadonlyMap<string, ProductData>): ProductData | undefined {
  for (const link of card.querySelectorAll("a[href]")) {
    const handle = PRODUCT_PATH.exec(new URL(link.getAttribute("href") ?? "", location.href).pathname)?.[1];
    const product = handle === undefined ? undefined : listed.get(decodeURIComponent(handle));
    if (product) return product;
  }
  return undefined;
}

/**
 * A collection page: each product card (the developer settings' collection_product_card selector)
 * whose product has a variant on an offer with a badge gets that badge, when the shop shows badges
 * on collection pages. A card's product is its own `script[data-preorder-product]` where the theme
 * renders one, else the app embed's (`script[data-preorder-collection]`) its link names.
 */
export function mountCollectionPage(embed: EmbedData, signals: Signals, now: number): void {
  if (!(embed.shop?.storefront.show_badge_on_collection_pages ?? true)) return signals.debug("collection badges are off");
  const locale = displayLocale(embed);
  const cards = pickAll(document, embed.shop?.developer.selectors.collection_product_card, DEFAULT_CARD);
  signals.debug("collection page", { cards: cards.length });
  const listed = new Map((readJson<ProductData[]>(document.querySelector("script[data-preorder-collection]")) ?? []).map((p) => [p.handle, p]));
  for (const card of cards) {
    const product = readJson<ProductData>(card.querySelector("script[data-preorder-product]")) ?? cardProduct(card, listed);
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
