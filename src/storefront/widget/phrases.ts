/**
 * The widget's own phrases around what the merchant writes: the delivery line, the amounts of a
 * payment option and the labels only a screen reader or a form needs (decision 0248). Dates,
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
  },
};

/** The phrases of the locale (`fr-CA` takes `fr`), else English. */
export function phrasesFor(locale: string): Phrases {
  const language = locale.toLowerCase().split("-")[0] ?? "en";
  return PHRASES[language] ?? (PHRASES.en as Phrases);
}
