/**
 * The storefront strings' keys and their shipped texts: plain data, shared by the service
 * (translations.ts) and the storefront widget's bundle (src/storefront/widget/), which shows the
 * English ones when a page carries no shop metafield.
 */
export const TRANSLATION_KEYS = [
  "widget.button_text",
  "widget.form_title",
  "widget.form_description",
  "widget.email_placeholder",
  "widget.phone_placeholder",
  "widget.submit_button",
  "widget.consent_label",
  "widget.success_message",
  "widget.already_subscribed_message",
  "widget.error_message",
  "widget.invalid_email_message",
  "widget.invalid_phone_message",
] as const;

export type TranslationKey = (typeof TRANSLATION_KEYS)[number];
export type Strings = Record<TranslationKey, string>;

export const SHIPPED_TRANSLATIONS: Record<string, Strings> = {
  en: {
    "widget.button_text": "Notify me when available",
    "widget.form_title": "Get notified",
    "widget.form_description": "We will let you know as soon as this item is back in stock.",
    "widget.email_placeholder": "Your e-mail address",
    "widget.phone_placeholder": "Your phone number",
    "widget.submit_button": "Notify me",
    "widget.consent_label": "I agree to receive a message when this item is back in stock.",
    "widget.success_message": "Thank you! We will notify you when this item is back in stock.",
    "widget.already_subscribed_message": "You are already on the list for this item.",
    "widget.error_message": "Something went wrong. Please try again.",
    "widget.invalid_email_message": "Please enter a valid e-mail address.",
    "widget.invalid_phone_message": "Please enter a valid phone number.",
  },
  fr: {
    "widget.button_text": "Me prévenir du retour en stock",
    "widget.form_title": "Être prévenu",
    "widget.form_description": "Nous vous préviendrons dès que cet article sera de nouveau disponible.",
    "widget.email_placeholder": "Votre adresse e-mail",
    "widget.phone_placeholder": "Votre numéro de téléphone",
    "widget.submit_button": "Me prévenir",
    "widget.consent_label": "J'accepte de recevoir un message quand cet article sera de retour.",
    "widget.success_message": "Merci ! Nous vous préviendrons du retour de cet article.",
    "widget.already_subscribed_message": "Vous êtes déjà inscrit pour cet article.",
    "widget.error_message": "Une erreur est survenue. Veuillez réessayer.",
    "widget.invalid_email_message": "Veuillez saisir une adresse e-mail valide.",
    "widget.invalid_phone_message": "Veuillez saisir un numéro de téléphone valide.",
  },
  de: {
    "widget.button_text": "Benachrichtigen, wenn verfügbar",
    "widget.form_title": "Benachrichtigung erhalten",
    "widget.form_description": "Wir informieren Sie, sobald dieser Artikel wieder auf Lager ist.",
    "widget.email_placeholder": "Ihre E-Mail-Adresse",
    "widget.phone_placeholder": "Ihre Telefonnummer",
    "widget.submit_button": "Benachrichtigen",
    "widget.consent_label": "Ich möchte eine Nachricht erhalten, wenn dieser Artikel wieder da ist.",
    "widget.success_message": "Danke! Wir benachrichtigen Sie, sobald der Artikel wieder da ist.",
    "widget.already_subscribed_message": "Sie stehen für diesen Artikel bereits auf der Liste.",
    "widget.error_message": "Etwas ist schiefgelaufen. Bitte versuchen Sie es erneut.",
    "widget.invalid_email_message": "Bitte geben Sie eine gültige E-Mail-Adresse ein.",
    "widget.invalid_phone_message": "Bitte geben Sie eine gültige Telefonnummer ein.",
  },
  es: {
    "widget.button_text": "Avisarme cuando esté disponible",
    "widget.form_title": "Recibir aviso",
    "widget.form_description": "Te avisaremos en cuanto este artículo vuelva a estar disponible.",
    "widget.email_placeholder": "Tu correo electrónico",
    "widget.phone_placeholder": "Tu número de teléfono",
    "widget.submit_button": "Avisarme",
    "widget.consent_label": "Acepto recibir un mensaje cuando este artículo vuelva a estar disponible.",
    "widget.success_message": "¡Gracias! Te avisaremos cuando este artículo vuelva.",
    "widget.already_subscribed_message": "Ya estás en la lista para este artículo.",
    "widget.error_message": "Algo salió mal. Inténtalo de nuevo.",
    "widget.invalid_email_message": "Introduce un correo electrónico válido.",
    "widget.invalid_phone_message": "Introduce un número de teléfono válido.",
  },
};
