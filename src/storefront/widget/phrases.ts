/**
 * The widget's own phrases around what the merchant writes: the delivery line, the amounts of a
 * payment option, the labels only a screen reader or a form needs, and the limits' refusals
 * (decision 0248). Dates,
 * amounts and units inside them are formatted by the browser's Intl for the page's locale; the
 * sentence around them is here, for the locales the shop's shipped strings have, else English.
 */
export interface Phrases {
  /** `{{ date }}`: the delivery date, e.g. "15 Jan 2027". */
  ships_by: string;
  /** `{{ days }}`: the delivery days with their unit, e.g. "3 days". */
  ships_in: string;
  /** A deposit's amounts, `{{ now }}` and `{{ later }}` in the shop's currency. */
  pay_now_later: string;
  /** Pay in full: `{{ now }}`. */
  pay_now: string;
  /** The payment options' group (a fieldset's legend). */
  payment_options: string;
  /** The notify-me channels' group (a fieldset's legend). */
  notify_by: string;
  email: string;
  sms: string;
  /** The countdown's name for a screen reader. */
  time_left: string;
  /** `{{ min }}` */
  at_least: string;
  /** `{{ max }}` */
  at_most: string;
  /** `{{ max }}`, `{{ in_cart }}` */
  at_most_in_cart: string;
  none_left: string;
  /** `{{ left }}` */
  only_left: string;
  /** `{{ left }}`, `{{ in_cart }}` */
  only_left_in_cart: string;
  added: string;
}

const PHRASES: Record<string, Phrases> = {
  en: {
    ships_by: "Ships by {{ date }}",
    ships_in: "Ships in {{ days }}",
    pay_now_later: "Pay {{ now }} now, {{ later }} later",
    pay_now: "Pay {{ now }} now",
    payment_options: "Payment options",
    notify_by: "Notify me by",
    email: "E-mail",
    sms: "Text message",
    time_left: "Time left",
    at_least: "You can preorder no fewer than {{ min }} of this item in one order.",
    at_most: "You can preorder at most {{ max }} of this item in one order.",
    at_most_in_cart: "You can preorder at most {{ max }} of this item in one order ({{ in_cart }} already in your cart).",
    none_left: "This item can no longer be preordered: none are left.",
    only_left: "Only {{ left }} left to preorder.",
    only_left_in_cart: "Only {{ left }} left to preorder ({{ in_cart }} already in your cart).",
    added: "Added to your cart.",
  },
  fr: {
    ships_by: "Expédié d’ici le {{ date }}",
    ships_in: "Expédié sous {{ days }}",
    pay_now_later: "Payez {{ now }} maintenant, {{ later }} plus tard",
    pay_now: "Payez {{ now }} maintenant",
    payment_options: "Options de paiement",
    notify_by: "Me prévenir par",
    email: "E-mail",
    sms: "SMS",
    time_left: "Temps restant",
    at_least: "Vous pouvez précommander au moins {{ min }} exemplaires de cet article par commande.",
    at_most: "Vous pouvez précommander au plus {{ max }} exemplaires de cet article par commande.",
    at_most_in_cart: "Vous pouvez précommander au plus {{ max }} exemplaires de cet article par commande ({{ in_cart }} déjà dans votre panier).",
    none_left: "Cet article ne peut plus être précommandé : il n’en reste aucun.",
    only_left: "Plus que {{ left }} à précommander.",
    only_left_in_cart: "Plus que {{ left }} à précommander ({{ in_cart }} déjà dans votre panier).",
    added: "Ajouté à votre panier.",
  },
  de: {
    ships_by: "Versand bis {{ date }}",
    ships_in: "Versand in {{ days }}",
    pay_now_later: "Jetzt {{ now }}, später {{ later }} zahlen",
    pay_now: "Jetzt {{ now }} zahlen",
    payment_options: "Zahlungsoptionen",
    notify_by: "Benachrichtigen per",
    email: "E-Mail",
    sms: "SMS",
    time_left: "Verbleibende Zeit",
    at_least: "Sie können mindestens {{ min }} Stück dieses Artikels pro Bestellung vorbestellen.",
    at_most: "Sie können höchstens {{ max }} Stück dieses Artikels pro Bestellung vorbestellen.",
    at_most_in_cart: "Sie können höchstens {{ max }} Stück dieses Artikels pro Bestellung vorbestellen ({{ in_cart }} bereits im Warenkorb).",
    none_left: "Dieser Artikel kann nicht mehr vorbestellt werden: Es sind keine mehr übrig.",
    only_left: "Nur noch {{ left }} zum Vorbestellen.",
    only_left_in_cart: "Nur noch {{ left }} zum Vorbestellen ({{ in_cart }} bereits im Warenkorb).",
    added: "In den Warenkorb gelegt.",
  },
  es: {
    ships_by: "Se envía antes del {{ date }}",
    ships_in: "Se envía en {{ days }}",
    pay_now_later: "Paga {{ now }} ahora y {{ later }} después",
    pay_now: "Paga {{ now }} ahora",
    payment_options: "Opciones de pago",
    notify_by: "Avisarme por",
    email: "Correo electrónico",
    sms: "SMS",
    time_left: "Tiempo restante",
    at_least: "Puedes reservar como mínimo {{ min }} unidades de este artículo por pedido.",
    at_most: "Puedes reservar como máximo {{ max }} unidades de este artículo por pedido.",
    at_most_in_cart: "Puedes reservar como máximo {{ max }} unidades de este artículo por pedido ({{ in_cart }} ya en tu carrito).",
    none_left: "Este artículo ya no se puede reservar: no quedan unidades.",
    only_left: "Solo quedan {{ left }} para reservar.",
    only_left_in_cart: "Solo quedan {{ left }} para reservar ({{ in_cart }} ya en tu carrito).",
    added: "Añadido a tu carrito.",
  },
};

/** The phrases of the locale (`fr-CA` takes `fr`), else English. */
export function phrasesFor(locale: string): Phrases {
  const language = locale.toLowerCase().split("-")[0] ?? "en";
  return PHRASES[language] ?? (PHRASES.en as Phrases);
}
