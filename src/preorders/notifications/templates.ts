import { z } from "zod";
import type { Db } from "../../core/db.ts";
import { storedStageSwitches, storedTemplateRows } from "../../messaging/templates.ts";
import { fallbackLocales } from "../../core/locales.ts";

/**
 * Notifications to preorder customers, by stage, channel and locale: the shipped defaults (en, fr,
 * de, es), a merchant's texts and each stage's switch (message_templates and message_stage_settings, area preorders).
 * Texts are Liquid, rendered with the back-in-stock engines and their limits.
 */

export const NOTIFICATION_STAGES = ["confirmation", "shipping_date_change", "balance_due", "payment_request"] as const;
export type NotificationStage = (typeof NOTIFICATION_STAGES)[number];
export const NOTIFICATION_CHANNELS = ["email", "sms"] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

export const stageSchema = z.enum(NOTIFICATION_STAGES);

export const DEFAULT_STAGE_ENABLED: Record<NotificationStage, boolean> = { confirmation: true, shipping_date_change: true, balance_due: true, payment_request: true };

interface ShippedTemplate {
  email: { subject: string; body: string };
  sms: { body: string };
}

/** How each locale says when the order ships, from delivery.date and delivery.days. */
const WHEN: Record<string, string> = {
  en: "{% if delivery.date != blank %}on {{ delivery.date }}{% elsif delivery.days %}within {{ delivery.days }} days{% else %}as soon as possible{% endif %}",
  fr: "{% if delivery.date != blank %}le {{ delivery.date }}{% elsif delivery.days %}sous {{ delivery.days }} jours{% else %}dès que possible{% endif %}",
  de: "{% if delivery.date != blank %}am {{ delivery.date }}{% elsif delivery.days %}innerhalb von {{ delivery.days }} Tagen{% else %}so bald wie möglich{% endif %}",
  es: "{% if delivery.date != blank %}el {{ delivery.date }}{% elsif delivery.days %}en {{ delivery.days }} días{% else %}lo antes posible{% endif %}",
};
const before = (when: string) => when.replaceAll("delivery.", "previous_delivery.");

function shipped(locale: "en" | "fr" | "de" | "es"): Record<NotificationStage, ShippedTemplate> {
  const when = WHEN[locale] ?? "";
  const texts = {
    en: {
      confirmation: ["Your preorder {{ order.name }} is confirmed", `Thank you for your preorder {{ order.name }} at {{ shop.name }}. {{ offer.name }} ships ${when}.`, "A balance of {{ balance.amount }} {{ order.currency }} is due on {{ balance.due_date }}.", "A balance of {{ balance.amount }} {{ order.currency }} remains to be paid."],
      shipping_date_change: ["New shipping date for your preorder {{ order.name }}", `{{ offer.name }} in your preorder {{ order.name }} now ships ${when} (before: ${before(when)}).`],
      balance_due: ["The balance of your preorder {{ order.name }} is due", "The remaining balance of {{ balance.amount }} {{ order.currency }} for your preorder {{ order.name }} is due on {{ balance.due_date }}.", "We will charge it automatically with your saved payment method."],
      payment_request: ["Pay the balance of your preorder {{ order.name }}", "The remaining balance of {{ balance.amount }} {{ order.currency }} for your preorder {{ order.name }} can be paid here:", "Pay the balance"],
    },
    fr: {
      confirmation: ["Votre précommande {{ order.name }} est confirmée", `Merci pour votre précommande {{ order.name }} chez {{ shop.name }}. {{ offer.name }} sera expédié ${when}.`, "Un solde de {{ balance.amount }} {{ order.currency }} est dû le {{ balance.due_date }}.", "Un solde de {{ balance.amount }} {{ order.currency }} reste à payer."],
      shipping_date_change: ["Nouvelle date d'expédition pour votre précommande {{ order.name }}", `{{ offer.name }} de votre précommande {{ order.name }} sera expédié ${when} (avant : ${before(when)}).`],
      balance_due: ["Le solde de votre précommande {{ order.name }} est dû", "Le solde de {{ balance.amount }} {{ order.currency }} de votre précommande {{ order.name }} est dû le {{ balance.due_date }}.", "Nous le débiterons automatiquement avec votre moyen de paiement enregistré."],
      payment_request: ["Réglez le solde de votre précommande {{ order.name }}", "Le solde de {{ balance.amount }} {{ order.currency }} de votre précommande {{ order.name }} peut être réglé ici :", "Régler le solde"],
    },
    de: {
      confirmation: ["Ihre Vorbestellung {{ order.name }} ist bestätigt", `Danke für Ihre Vorbestellung {{ order.name }} bei {{ shop.name }}. {{ offer.name }} wird ${when} versandt.`, "Ein Restbetrag von {{ balance.amount }} {{ order.currency }} ist am {{ balance.due_date }} fällig.", "Ein Restbetrag von {{ balance.amount }} {{ order.currency }} ist noch offen."],
      shipping_date_change: ["Neues Versanddatum für Ihre Vorbestellung {{ order.name }}", `{{ offer.name }} aus Ihrer Vorbestellung {{ order.name }} wird jetzt ${when} versandt (vorher: ${before(when)}).`],
      balance_due: ["Der Restbetrag Ihrer Vorbestellung {{ order.name }} ist fällig", "Der Restbetrag von {{ balance.amount }} {{ order.currency }} für Ihre Vorbestellung {{ order.name }} ist am {{ balance.due_date }} fällig.", "Wir buchen ihn automatisch über Ihre gespeicherte Zahlungsart ab."],
      payment_request: ["Zahlen Sie den Restbetrag Ihrer Vorbestellung {{ order.name }}", "Den Restbetrag von {{ balance.amount }} {{ order.currency }} für Ihre Vorbestellung {{ order.name }} können Sie hier bezahlen:", "Restbetrag bezahlen"],
    },
    es: {
      confirmation: ["Tu reserva {{ order.name }} está confirmada", `Gracias por tu reserva {{ order.name }} en {{ shop.name }}. {{ offer.name }} se enviará ${when}.`, "Quedan {{ balance.amount }} {{ order.currency }} por pagar el {{ balance.due_date }}.", "Quedan {{ balance.amount }} {{ order.currency }} por pagar."],
      shipping_date_change: ["Nueva fecha de envío de tu reserva {{ order.name }}", `{{ offer.name }} de tu reserva {{ order.name }} se enviará ${when} (antes: ${before(when)}).`],
      balance_due: ["El saldo de tu reserva {{ order.name }} vence", "El saldo de {{ balance.amount }} {{ order.currency }} de tu reserva {{ order.name }} vence el {{ balance.due_date }}.", "Lo cobraremos automáticamente con tu método de pago guardado."],
      payment_request: ["Paga el saldo de tu reserva {{ order.name }}", "Puedes pagar el saldo de {{ balance.amount }} {{ order.currency }} de tu reserva {{ order.name }} aquí:", "Pagar el saldo"],
    },
  }[locale];
  const conf = texts.confirmation;
  const change = texts.shipping_date_change;
  const due = texts.balance_due;
  const pay = texts.payment_request;
  return {
    confirmation: {
      // An order may have a balance without a due date (the offer sets none): no "due on ." then.
      email: { subject: conf[0] ?? "", body: `<p>${conf[1] ?? ""}</p>{% if balance.amount != blank %}<p>{% if balance.due_date != blank %}${conf[2] ?? ""}{% else %}${conf[3] ?? ""}{% endif %}</p>{% endif %}` },
      sms: { body: `{{ shop.name }}: ${conf[1] ?? ""}` },
    },
    shipping_date_change: {
      email: { subject: change[0] ?? "", body: `<p>${change[1] ?? ""}</p>` },
      sms: { body: `{{ shop.name }}: ${change[1] ?? ""}` },
    },
    balance_due: {
      email: { subject: due[0] ?? "", body: `<p>${due[1] ?? ""}</p>{% if balance.auto_collect %}<p>${due[2] ?? ""}</p>{% endif %}` },
      sms: { body: `{{ shop.name }}: ${due[1] ?? ""}{% if balance.auto_collect %} ${due[2] ?? ""}{% endif %}` },
    },
    payment_request: {
      email: { subject: pay[0] ?? "", body: `<p>${pay[1] ?? ""}</p>{% if balance.payment_url != blank %}<p><a href="{{ balance.payment_url }}">${pay[2] ?? ""}</a></p>{% endif %}` },
      sms: { body: `{{ shop.name }}: ${pay[1] ?? ""}{% if balance.payment_url != blank %} {{ balance.payment_url }}{% endif %}` },
    },
  };
}

export const SHIPPED_LOCALES = ["en", "fr", "de", "es"] as const;
const SHIPPED: Record<string, Record<NotificationStage, ShippedTemplate>> = Object.fromEntries(SHIPPED_LOCALES.map((l) => [l, shipped(l)]));

export function shippedTemplate(stage: NotificationStage, locale: string): ShippedTemplate | undefined {
  return SHIPPED[locale]?.[stage];
}

interface TemplateText {
  subject: string;
  body: string;
}

export interface StoredTemplate {
  locale: string;
  channel: NotificationChannel;
  subject: string | null;
  body: string;
}

/** The merchant's texts of a stage, every locale and channel. */
export async function storedTemplates(db: Db, shopId: string, stage: NotificationStage): Promise<StoredTemplate[]> {
  return storedTemplateRows(db, shopId, "preorders", stage);
}

/** Whether each stage is on for the shop. */
export async function stageSwitches(db: Db, shopId: string): Promise<Record<NotificationStage, boolean>> {
  const switches = { ...DEFAULT_STAGE_ENABLED };
  for (const [stage, enabled] of await storedStageSwitches(db, shopId, "preorders")) if (stage in switches) switches[stage as NotificationStage] = enabled;
  return switches;
}

/** The text a message of the stage, channel and locale uses: the first candidate locale with a merchant's text or a shipped default. */
export function chooseTemplate(
  stage: NotificationStage,
  channel: NotificationChannel,
  locale: string,
  shopDefault: string,
  stored: readonly StoredTemplate[],
): TemplateText & { locale: string } {
  const candidates = fallbackLocales(locale, shopDefault);
  const shippedSubject = candidates.map((c) => shippedTemplate(stage, c)?.email.subject).find((s) => s !== undefined) ?? "";
  for (const candidate of candidates) {
    const own = stored.find((t) => t.locale === candidate && t.channel === channel);
    if (own) return { subject: own.subject ?? shippedSubject, body: own.body, locale: candidate };
    const shippedText = shippedTemplate(stage, candidate);
    if (shippedText) return channel === "email" ? { ...shippedText.email, locale: candidate } : { subject: "", body: shippedText.sms.body, locale: candidate };
  }
  throw new Error(`no ${stage} template for ${channel}`);
}
