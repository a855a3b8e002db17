import { PREORDER_OFFER_PROPERTY } from "../line-properties.ts";
import { DEFAULT_SHIPPING_TEXT } from "../shipping-text.ts";
import { addToCart, readCart } from "./cart.ts";
import { countdownElement } from "./countdown.ts";
import { badgeElement } from "./badge.ts";
import { el, fill, insertAfter, pick } from "./dom.ts";
import { formatDate, formatMoney, formatUnits } from "./format.ts";
import { guardMixedCart } from "./mixed-cart.ts";
import { notifyForm } from "./notify.ts";
import { buttonState, displayLocale, legacyId, offerFor, offersOutsideMarket, onPreorder, translate } from "./offer.ts";
import { type Phrases, phrasesFor } from "./phrases.ts";
import { adoptThemeLook, ensureStyles } from "./styles.ts";
import type { Signals } from "./signals.ts";
import type { EmbedData, OfferConfig, ProductData, VariantData } from "./types.ts";

/** The theme elements the widget works with, found by the developer settings' selectors or the usual ones. */
const DEFAULT_SELECTORS = {
  product_form: 'form[action$="/cart/add"]',
  add_to_cart_button: 'button[type="submit"], input[type="submit"]',
  price: "[data-product-price], .price",
};
const DYNAMIC_CHECKOUT = "[data-dynamic-checkout], .shopify-payment-button";

interface Page {
  embed: EmbedData;
  product: ProductData;
  signals: Signals;
  now: () => number;
  locale: string;
  form: HTMLFormElement | null;
  addButton: HTMLElement | null;
  price: HTMLElement | null;
}

type Cleanup = () => void;

/** Mounts the widget on a product page and follows the variant selector. */
export function mountProductPage(embed: EmbedData, product: ProductData, signals: Signals, now: () => number): void {
  const selectors = embed.shop?.developer.selectors;
  const form = pick<HTMLFormElement>(document, selectors?.product_form, DEFAULT_SELECTORS.product_form);
  const page: Page = {
    embed,
    product,
    signals,
    now,
    locale: displayLocale(embed),
    form,
    addButton: pick(form ?? document, selectors?.add_to_cart_button, DEFAULT_SELECTORS.add_to_cart_button) ?? pick(document, selectors?.add_to_cart_button, DEFAULT_SELECTORS.add_to_cart_button),
    price: pick(document, selectors?.price, DEFAULT_SELECTORS.price),
  };
  signals.debug("product page", { product: product.id, form: form !== null, add_to_cart_button: page.addButton !== null, price: page.price !== null, locale: page.locale });
  let cleanup: Cleanup = () => undefined;
  const render = () => {
    cleanup();
    const variant = selectedVariant(page);
    cleanup = variant ? renderVariant(page, variant) : () => undefined;
  };
  form?.addEventListener("change", (event) => {
    if ((event.target as HTMLElement | null)?.getAttribute("name") !== "id") return;
    render();
    signals.emit("preorder:variant_changed", { product_id: product.id, variant_id: selectedVariant(page)?.id ?? null });
  });
  render();
}

function selectedVariant(page: Page): VariantData | undefined {
  const input = page.form?.querySelector<HTMLInputElement | HTMLSelectElement>('[name="id"]');
  const wanted = input?.value ?? new URLSearchParams(location.search).get("variant");
  return page.product.variants.find((v) => String(v.id) === wanted) ?? page.product.variants[0];
}

function renderVariant(page: Page, variant: VariantData): Cleanup {
  const offer = offerFor(variant, page.embed, page.now());
  const shut = offersOutsideMarket(variant, page.embed);
  if (shut.length > 0) page.signals.debug("offers not taking orders in this market", { market: page.embed.market_id, offers: shut.map((o) => o.offer_id) });
  if (offer && onPreorder(offer, variant)) {
    page.signals.debug("preorder", { variant: variant.id, offer: offer.offer_id });
    return mountPreorder(page, variant, offer);
  }
  if (offer) {
    page.signals.debug("in stock on the platform: the preorder waits for its stock to sell out (inventory.provider platform)", { variant: variant.id, offer: offer.offer_id });
    return guardMixedCart(page.form, page.addButton, page.signals);
  }
  if (!variant.available) {
    page.signals.debug("sold out without an offer: notify me form", { variant: variant.id });
    ensureStyles();
    const root = notifyForm(page.embed, variant, page.signals);
    adoptThemeLook(root, page.addButton);
    // After the product form, not in it: a form inside a form is not HTML.
    insertAfter(page.form ?? page.addButton, root);
    return () => root.remove();
  }
  page.signals.debug("in stock without an offer: the theme's add to cart, kept apart from preorders that want no mixed cart", { variant: variant.id });
  return guardMixedCart(page.form, page.addButton, page.signals);
}

/** Hides an element until the cleanup shows it again. */
function hide(element: Element | null, cleanups: Cleanup[]): void {
  if (!(element instanceof HTMLElement)) return;
  const before = element.style.display;
  element.style.display = "none";
  cleanups.push(() => {
    element.style.display = before;
  });
}

function preorderTexts(page: Page, variant: VariantData, offer: OfferConfig) {
  const t = (field: string, text: string) => translate(offer, page.locale, field, text);
  const state = buttonState(offer, variant, page.now());
  const override = offer.widget.button_text_overrides[state];
  return {
    state,
    button: override !== null ? t(`advanced.button_text_overrides.${state}`, override) : t("widget.button.text", offer.widget.button.text),
    badge: t("widget.badge.text", offer.widget.badge.text),
    disclaimer: t("widget.disclaimer.text", offer.widget.disclaimer.text),
    shipping: offer.shipping.display.shipping_text === null ? null : t("shipping.display.shipping_text", offer.shipping.display.shipping_text),
    terms: t("checkout.terms.text", offer.checkout.terms.text),
    mixedCart: t("checkout.mixed_cart.error_message", offer.checkout.mixed_cart.error_message),
    limit: t("limits.display.quantity_limit_text", offer.limits.display.quantity_limit_text),
    countdown: t("countdown.text", offer.countdown.text),
  };
}

function mountPreorder(page: Page, variant: VariantData, offer: OfferConfig): Cleanup {
  const cleanups: Cleanup[] = [];
  const texts = preorderTexts(page, variant, offer);
  const phrases = phrasesFor(page.locale);
  ensureStyles();
  const storefront = page.embed.shop?.storefront;
  // Off the platform plan (null), the line names its offer instead; on it, the chosen option's own plan (decision 0212).
  const offerPlan = offer.selling_plan_id === null ? undefined : Number(legacyId(offer.selling_plan_id));
  const planOf = (option: OfferConfig["payments"]["options"][number] | undefined): number | undefined =>
    offerPlan === undefined || !option?.selling_plan_id ? offerPlan : Number(legacyId(option.selling_plan_id));
  const options = paymentOptions(offer);
  let chosenOption = options[0];
  const offerPlans = new Set([offerPlan, ...options.map(planOf)].filter((id): id is number => id !== undefined));

  if (offer.custom_css.trim() !== "") {
    const style = el("style", { "data-preorder-css": offer.offer_id }, [offer.custom_css]);
    document.head.append(style);
    cleanups.push(() => style.remove());
  }

  // The badge beside the price.
  if (offer.widget.badge.enabled && (storefront?.show_badge_on_product_pages ?? true)) {
    const badge = badgeElement(offer, texts.badge);
    if (page.price) page.price.append(badge);
    else insertAfter(page.form, badge);
    cleanups.push(() => badge.remove());
  }

  const root = el("div", { class: "preorder-widget", "data-preorder-offer": offer.offer_id, "data-preorder-state": texts.state });
  // Read before it is hidden: the theme's button look is the widget's default.
  adoptThemeLook(root, page.addButton);
  // The theme's own buttons give way: its add to cart, and the buy-now buttons that would skip the terms.
  hide(page.addButton, cleanups);
  if (storefront?.hide_dynamic_checkout_buttons ?? true) for (const node of document.querySelectorAll(DYNAMIC_CHECKOUT)) hide(node, cleanups);

  // The form's selling plan input, so a submit by the theme's own path (Enter) also takes the plan.
  const planInput = page.form?.querySelector<HTMLInputElement>('input[name="selling_plan"]');
  const showPlan = () => {
    if (!planInput) return;
    const plan = planOf(chosenOption);
    planInput.value = plan === undefined ? "" : String(plan);
  };
  if (planInput) {
    const before = planInput.value;
    showPlan();
    cleanups.push(() => {
      planInput.value = before;
    });
  }

  const quantityInput = (page.form ?? document).querySelector<HTMLInputElement>('input[name="quantity"]');
  const min = offer.limits.per_order.min;
  // The variant's own max count, when it has one, is already its per_order.max (decision 0203).
  const max = offer.limits.per_order.max;
  if (quantityInput) {
    const before = { min: quantityInput.min, max: quantityInput.max, value: quantityInput.value };
    quantityInput.min = String(Math.max(1, min));
    if (max !== null) quantityInput.max = String(max);
    if (Number(quantityInput.value) < min) quantityInput.value = String(min);
    cleanups.push(() => {
      quantityInput.min = before.min;
      quantityInput.max = before.max;
    });
  }

  const message = el("p", { class: "preorder-message", role: "status", "aria-live": "polite" });

  const countdown = countdownElement(offer, texts.countdown, page.now, page.locale);
  if (countdown) root.append(countdown);

  // The delivery line goes under the button; the offer's shipping text stays here, unless it is
  // still the default "as soon as it is available", which a dated delivery contradicts.
  const showDetails = offer.shipping.display.show_details;
  const delivery = showDetails ? deliveryLine(offer, phrases, page.locale) : null;
  const ownShippingText = texts.shipping !== null && !(delivery !== null && offer.shipping.display.shipping_text === DEFAULT_SHIPPING_TEXT);
  const shipping = ownShippingText && texts.shipping !== null ? shippingText(offer, texts.shipping, page.locale) : null;
  if (showDetails && shipping !== null) root.append(el("p", { class: "preorder-shipping" }, [shipping]));

  // The live count (it moves with each order, so it is not in the metafield): read once, for the
  // "Only N left" line, for a click past what is left (the checkout refuses it too, decision 0211)
  // and, with the app as the inventory provider, for the offer's own stock.
  const appStock = offer.inventory?.provider === "app" && offer.limits.total.max !== null;
  const remainingCount = offer.limits.display.show_remaining || offer.limits.total.max !== null ? readRemaining(page, offer) : Promise.resolve(null);
  if (offer.limits.display.show_remaining) {
    const remaining = el("p", { class: "preorder-remaining", hidden: "" });
    root.append(remaining);
    void remainingCount.then((count) => {
      if (count === null) return;
      remaining.textContent = fill(texts.limit, { remaining: count });
      remaining.hidden = false;
    });
  }

  if (options.length > 0) {
    const list = el("fieldset", { class: "preorder-payment-options" }, [el("legend", {}, [phrases.payment_options])]);
    const amounts: (() => void)[] = [];
    options.forEach((option, index) => {
      const radio = el("input", { type: "radio", name: "preorder-payment-option", value: option.type });
      radio.checked = index === 0;
      radio.addEventListener("change", () => {
        if (!radio.checked) return;
        chosenOption = option;
        showPlan();
      });
      const amount = el("span", { class: "preorder-payment-amount", "data-payment-amount": option.type });
      const showAmount = () => {
        const text = optionAmounts(page, offer, option, variant, phrases, quantityOf(quantityInput));
        amount.textContent = text ?? "";
        amount.hidden = text === null;
      };
      showAmount();
      amounts.push(showAmount);
      const label = el("label", { class: "preorder-payment-option", "data-payment-option": option.type }, [
        radio,
        el("strong", { class: "preorder-payment-option__title" }, [option.title]),
        ...(option.description.trim() === "" ? [] : [el("span", { class: "preorder-payment-option__description" }, [option.description])]),
        amount,
      ]);
      list.append(label);
    });
    // The amounts follow the quantity: what the shopper pays for what they are about to add.
    if (quantityInput) {
      const follow = () => {
        for (const show of amounts) show();
      };
      quantityInput.addEventListener("input", follow);
      cleanups.push(() => quantityInput.removeEventListener("input", follow));
    }
    if (offer.payments.billing_widget_text) list.append(el("p", { class: "preorder-billing-text" }, [offer.payments.billing_widget_text]));
    root.append(list);
  }

  let termsBox: HTMLInputElement | undefined;
  if (offer.checkout.terms.enabled) {
    termsBox = el("input", { type: "checkbox", name: "preorder-terms" });
    root.append(el("label", { class: "preorder-terms" }, [termsBox, " ", texts.terms]));
  }

  const button = el("button", { type: "button", class: "preorder-button", "data-preorder-button": "" }, [texts.button]);
  if (offer.widget.button.colors.enabled) {
    // The offer's own colours, inline: they win over a theme's custom properties and its rules for buttons in its product form.
    button.style.color = offer.widget.button.colors.text_color;
    button.style.backgroundColor = offer.widget.button.colors.background_color;
    button.style.borderColor = offer.widget.button.colors.background_color;
  }
  const blockUntilTicked = offer.checkout.terms.enabled && offer.checkout.terms.disable_button_until_acknowledged;
  // inventory.provider app: the offer's stock is its total limit; none left, no preorder.
  let soldOut = false;
  const settle = () => {
    button.disabled = soldOut || (blockUntilTicked && !termsBox?.checked);
  };
  if (blockUntilTicked && termsBox) termsBox.addEventListener("change", settle);
  settle();
  if (appStock) {
    void remainingCount.then((count) => {
      if (count !== 0) return;
      soldOut = true;
      button.dataset.soldOut = "";
      if (offer.widget.button_text_overrides.out_of_stock !== null) button.textContent = translate(offer, page.locale, "advanced.button_text_overrides.out_of_stock", offer.widget.button_text_overrides.out_of_stock);
      settle();
    });
  }
  root.append(button);
  if (delivery !== null) root.append(el("p", { class: "preorder-delivery", "data-preorder-delivery": "" }, [delivery]));

  if (offer.widget.disclaimer.enabled) {
    const disclaimer = el("div", { class: "preorder-disclaimer" }, [texts.disclaimer]);
    disclaimer.style.color = offer.widget.disclaimer.text_color;
    disclaimer.style.backgroundColor = offer.widget.disclaimer.background_color;
    disclaimer.style.borderRadius = offer.widget.disclaimer.border_radius;
    root.append(disclaimer);
  }
  root.append(message);

  button.addEventListener("click", () => {
    void (async () => {
      if (soldOut || (blockUntilTicked && !termsBox?.checked)) return;
      message.dataset.kind = "";
      const quantity = Math.floor(Number(quantityInput?.value ?? "1")) || 1;
      const refuse = (text: string) => {
        message.textContent = text;
        message.dataset.kind = "error";
        page.signals.emit("preorder:refused", { variant_id: variant.id, offer_id: offer.offer_id, reason: text });
      };
      if (quantity < min) return refuse(fill(phrases.at_least, { min }));
      const cart = await readCart();
      const inCart = cart.filter((line) => line.variant_id === variant.id).reduce((sum, line) => sum + line.quantity, 0);
      if (max !== null && quantity + inCart > max) {
        return refuse(inCart > 0 ? fill(phrases.at_most_in_cart, { max, in_cart: inCart }) : fill(phrases.at_most, { max }));
      }
      // The offer's total limit counts its units of every variant: those on any of its plans (one per payment option, decision 0212), or naming it, in the cart.
      const left = await remainingCount;
      if (left !== null) {
        const offerInCart = cart
          .filter((line) =>
            offerPlan === undefined ? line.properties?.[PREORDER_OFFER_PROPERTY] === offer.offer_id : offerPlans.has(line.selling_plan_allocation?.selling_plan.id ?? -1),
          )
          .reduce((sum, line) => sum + line.quantity, 0);
        if (quantity + offerInCart > left) {
          if (left === 0) return refuse(phrases.none_left);
          return refuse(offerInCart > 0 ? fill(phrases.only_left_in_cart, { left, in_cart: offerInCart }) : fill(phrases.only_left, { left }));
        }
      }
      if (!offer.checkout.mixed_cart.allowed && cart.some((line) => !line.selling_plan_allocation)) return refuse(texts.mixedCart);
      const properties: Record<string, string> = {};
      const shippingLine = shipping ?? delivery;
      if (offer.shipping.display.shipping_line_item_property_enabled && shippingLine !== null) properties.Shipping = shippingLine;
      if (options.length > 1 && chosenOption) properties["Payment option"] = chosenOption.title;
      if (termsBox?.checked) properties._preorder_terms_accepted = "yes";
      // Sold without a platform selling plan: the line names its offer, which is how the order is known as a preorder.
      if (offerPlan === undefined) properties[PREORDER_OFFER_PROPERTY] = offer.offer_id;
      const sellingPlan = planOf(chosenOption);
      // What an in-stock item's page needs to refuse joining this line (guardMixedCart).
      if (!offer.checkout.mixed_cart.allowed) properties._preorder_mixed_cart = texts.mixedCart;
      button.disabled = true;
      const added = await addToCart({ id: variant.id, quantity, ...(sellingPlan === undefined ? {} : { selling_plan: sellingPlan }), properties });
      settle();
      if (!added.ok) return refuse(added.message);
      message.textContent = phrases.added;
      message.dataset.kind = "added";
      page.signals.emit("preorder:added_to_cart", { variant_id: variant.id, quantity, offer_id: offer.offer_id, selling_plan: sellingPlan ?? null });
    })();
  });

  insertAfter(page.addButton ?? page.form, root);
  cleanups.push(() => root.remove());
  page.signals.emit("preorder:button_shown", { variant_id: variant.id, offer_id: offer.offer_id, state: texts.state });
  return () => {
    for (const cleanup of cleanups.reverse()) cleanup();
  };
}

/** The shipping text with `{{ date }}` (the delivery date in the page's language) and `{{ days }}` filled in. */
function shippingText(offer: OfferConfig, text: string, locale: string): string {
  const { date, days } = offer.shipping.delivery;
  let formatted = "";
  if (date !== null) {
    try {
      formatted = new Date(date).toLocaleDateString(locale, { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });
    } catch {
      formatted = date.slice(0, 10);
    }
  }
  return fill(text, { date: formatted, days: days ?? "" });
}

/**
 * The delivery as a shopper reads it, in the page's locale: "Ships by Jan 15, 2027" for a dated
 * delivery, "Ships in 3 days" for one within days; null for as soon as possible.
 */
function deliveryLine(offer: OfferConfig, phrases: Phrases, locale: string): string | null {
  const { type, date, days } = offer.shipping.delivery;
  if (type === "on_date" && date !== null) return fill(phrases.ships_by, { date: formatDate(date, locale) });
  if (days !== null && days > 0) return fill(phrases.ships_in, { days: formatUnits(days, "day", locale) });
  return null;
}

function quantityOf(input: HTMLInputElement | null): number {
  return Math.max(1, Math.floor(Number(input?.value ?? "1")) || 1);
}

/**
 * What the option charges now and later for the quantity, in the page's currency: the variant's
 * price less the offer's discount (the selling plan's pricing policy), the deposit its percentage
 * of it (the plan's checkout charge), the balance the rest. Null when the price or currency is
 * unknown, or a fixed discount (in the shop's currency) meets a page in another.
 */
function optionAmounts(page: Page, offer: OfferConfig, option: OfferConfig["payments"]["options"][number], variant: VariantData, phrases: Phrases, quantity: number): string | null {
  const { currency, shop_currency: shopCurrency } = page.embed;
  if (typeof variant.price !== "number" || !currency) return null;
  let unit = variant.price;
  const { type, value } = offer.payments.discount;
  if (value !== null && value > 0 && type === "percentage") unit = Math.round((unit * (100 - value)) / 100);
  if (value !== null && value > 0 && type === "fixed_amount") {
    if (shopCurrency && shopCurrency !== currency) return null;
    unit = Math.max(0, unit - Math.round(value * 100));
  }
  const total = unit * quantity;
  const money = (cents: number) => formatMoney(cents, currency, page.locale);
  if (option.type === "deposit") {
    const now = Math.round((total * (option.deposit_percent ?? 50)) / 100);
    const [first, rest] = [money(now), money(total - now)];
    return first === null || rest === null ? null : fill(phrases.pay_now_later, { now: first, later: rest });
  }
  const all = money(total);
  return all === null ? null : fill(phrases.pay_now, { now: all });
}

/** The enabled payment options; with show_partial_first the deposit comes first (and is chosen). */
function paymentOptions(offer: OfferConfig): OfferConfig["payments"]["options"] {
  const options = [...offer.payments.options];
  if (offer.payments.show_partial_first) options.sort((a, b) => Number(b.type === "deposit") - Number(a.type === "deposit"));
  return options;
}

/** The offer's units left to preorder (total.max less the units preordered), read live through the app proxy; null: no limit or unknown. */
async function readRemaining(page: Page, offer: OfferConfig): Promise<number | null> {
  try {
    const response = await fetch(`${page.embed.proxy_path}/preorders/offers/${encodeURIComponent(offer.offer_id)}/remaining`, { headers: { accept: "application/json" } });
    if (!response.ok) {
      page.signals.debug("remaining count unavailable", { status: response.status });
      return null;
    }
    return ((await response.json()) as { remaining: number | null }).remaining;
  } catch (error) {
    page.signals.debug("remaining count unavailable", error);
    return null;
  }
}
