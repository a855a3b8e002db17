export const STAGES = ["initial", "reminder", "signup_thank_you"] as const;
export type Stage = (typeof STAGES)[number];
export const CHANNELS = ["email", "sms"] as const;
export type Channel = (typeof CHANNELS)[number];

interface TemplateText {
  email: { subject: string; body: string };
  sms: { body: string };
}

/** Whether a stage sends until the merchant changes it. */
export const DEFAULT_STAGE_ENABLED: Record<Stage, boolean> = {
  initial: true,
  reminder: false,
  signup_thank_you: false,
};

const UNSUBSCRIBE: Record<string, string> = { en: "Unsubscribe", fr: "Se désabonner", de: "Abmelden", es: "Darse de baja" };

const emailBody = (locale: string, lines: { greeting: string; text: string; cta: string; footer: string }): string =>
  `<p>${lines.greeting}</p>
<p>${lines.text}</p>
{% if product.url != blank %}<p><a href="{{ product.url }}">${lines.cta}</a></p>{% endif %}
<p style="font-size:12px;color:#666">${lines.footer} <a href="{{ unsubscribe_url }}">${UNSUBSCRIBE[locale] ?? "Unsubscribe"}</a></p>`;

/** Shipped defaults, by stage and locale; a merchant's override replaces one stage, locale and channel. */
export const DEFAULT_TEMPLATES: Record<Stage, Record<string, TemplateText>> = {
  initial: {
    en: {
      email: {
        subject: "{{ product.title }} is back in stock",
        body: emailBody("en", {
          greeting: "Hi{% if customer.first_name != blank %} {{ customer.first_name }}{% endif %},",
          text: "Good news: {{ product.title }}{% if variant.title != blank %} ({{ variant.title }}){% endif %} is back in stock at {{ shop.name }}. Quantities are limited.",
          cta: "Shop now",
          footer: "You asked to be told when this item was back.",
        }),
      },
      sms: { body: "{{ shop.name }}: {{ product.title }} is back in stock. Shop now: {{ product.url }} Reply STOP to opt out." },
    },
    fr: {
      email: {
        subject: "{{ product.title }} est de nouveau en stock",
        body: emailBody("fr", {
          greeting: "Bonjour{% if customer.first_name != blank %} {{ customer.first_name }}{% endif %},",
          text: "Bonne nouvelle : {{ product.title }}{% if variant.title != blank %} ({{ variant.title }}){% endif %} est de nouveau disponible chez {{ shop.name }}. Les quantités sont limitées.",
          cta: "Acheter maintenant",
          footer: "Vous avez demandé à être prévenu du retour de cet article.",
        }),
      },
      sms: { body: "{{ shop.name }} : {{ product.title }} est de nouveau en stock. {{ product.url }} Répondez STOP pour vous désabonner." },
    },
    de: {
      email: {
        subject: "{{ product.title }} ist wieder auf Lager",
        body: emailBody("de", {
          greeting: "Hallo{% if customer.first_name != blank %} {{ customer.first_name }}{% endif %},",
          text: "Gute Nachrichten: {{ product.title }}{% if variant.title != blank %} ({{ variant.title }}){% endif %} ist bei {{ shop.name }} wieder verfügbar. Nur begrenzte Stückzahl.",
          cta: "Jetzt kaufen",
          footer: "Sie wollten benachrichtigt werden, sobald dieser Artikel wieder da ist.",
        }),
      },
      sms: { body: "{{ shop.name }}: {{ product.title }} ist wieder auf Lager. {{ product.url }} Antworte STOP zum Abmelden." },
    },
    es: {
      email: {
        subject: "{{ product.title }} vuelve a estar disponible",
        body: emailBody("es", {
          greeting: "Hola{% if customer.first_name != blank %} {{ customer.first_name }}{% endif %},",
          text: "Buenas noticias: {{ product.title }}{% if variant.title != blank %} ({{ variant.title }}){% endif %} vuelve a estar disponible en {{ shop.name }}. Unidades limitadas.",
          cta: "Comprar ahora",
          footer: "Pediste que te avisáramos cuando este artículo volviera.",
        }),
      },
      sms: { body: "{{ shop.name }}: {{ product.title }} vuelve a estar disponible. {{ product.url }} Responde STOP para darte de baja." },
    },
  },
  reminder: {
    en: {
      email: {
        subject: "Still available: {{ product.title }}",
        body: emailBody("en", {
          greeting: "Hi{% if customer.first_name != blank %} {{ customer.first_name }}{% endif %},",
          text: "A reminder that {{ product.title }}{% if variant.title != blank %} ({{ variant.title }}){% endif %} is back in stock at {{ shop.name }}, but it may not last.",
          cta: "Get it before it's gone",
          footer: "You asked to be told when this item was back.",
        }),
      },
      sms: { body: "{{ shop.name }}: reminder, {{ product.title }} is still in stock. {{ product.url }} Reply STOP to opt out." },
    },
    fr: {
      email: {
        subject: "Toujours disponible : {{ product.title }}",
        body: emailBody("fr", {
          greeting: "Bonjour{% if customer.first_name != blank %} {{ customer.first_name }}{% endif %},",
          text: "Petit rappel : {{ product.title }}{% if variant.title != blank %} ({{ variant.title }}){% endif %} est de nouveau en stock chez {{ shop.name }}, mais pas pour longtemps.",
          cta: "Le commander avant qu'il ne parte",
          footer: "Vous avez demandé à être prévenu du retour de cet article.",
        }),
      },
      sms: { body: "{{ shop.name }} : rappel, {{ product.title }} est toujours en stock. {{ product.url }} Répondez STOP pour vous désabonner." },
    },
    de: {
      email: {
        subject: "Noch verfügbar: {{ product.title }}",
        body: emailBody("de", {
          greeting: "Hallo{% if customer.first_name != blank %} {{ customer.first_name }}{% endif %},",
          text: "Zur Erinnerung: {{ product.title }}{% if variant.title != blank %} ({{ variant.title }}){% endif %} ist bei {{ shop.name }} wieder auf Lager, aber vielleicht nicht mehr lange.",
          cta: "Jetzt sichern",
          footer: "Sie wollten benachrichtigt werden, sobald dieser Artikel wieder da ist.",
        }),
      },
      sms: { body: "{{ shop.name }}: Erinnerung, {{ product.title }} ist noch auf Lager. {{ product.url }} Antworte STOP zum Abmelden." },
    },
    es: {
      email: {
        subject: "Todavía disponible: {{ product.title }}",
        body: emailBody("es", {
          greeting: "Hola{% if customer.first_name != blank %} {{ customer.first_name }}{% endif %},",
          text: "Te recordamos que {{ product.title }}{% if variant.title != blank %} ({{ variant.title }}){% endif %} vuelve a estar disponible en {{ shop.name }}, pero puede agotarse pronto.",
          cta: "Consíguelo antes de que se agote",
          footer: "Pediste que te avisáramos cuando este artículo volviera.",
        }),
      },
      sms: { body: "{{ shop.name }}: recordatorio, {{ product.title }} sigue disponible. {{ product.url }} Responde STOP para darte de baja." },
    },
  },
  signup_thank_you: {
    en: {
      email: {
        subject: "We'll let you know when {{ product.title }} is back",
        body: emailBody("en", {
          greeting: "Hi{% if customer.first_name != blank %} {{ customer.first_name }}{% endif %},",
          text: "Thanks for your interest in {{ product.title }}{% if variant.title != blank %} ({{ variant.title }}){% endif %}. {{ shop.name }} will write to you as soon as it is back in stock.",
          cta: "View the product",
          footer: "You signed up for a back-in-stock alert.",
        }),
      },
      sms: { body: "{{ shop.name }}: thanks! We'll text you when {{ product.title }} is back in stock. Reply STOP to opt out." },
    },
    fr: {
      email: {
        subject: "Nous vous préviendrons du retour de {{ product.title }}",
        body: emailBody("fr", {
          greeting: "Bonjour{% if customer.first_name != blank %} {{ customer.first_name }}{% endif %},",
          text: "Merci de votre intérêt pour {{ product.title }}{% if variant.title != blank %} ({{ variant.title }}){% endif %}. {{ shop.name }} vous écrira dès son retour en stock.",
          cta: "Voir le produit",
          footer: "Vous vous êtes inscrit à une alerte de retour en stock.",
        }),
      },
      sms: { body: "{{ shop.name }} : merci ! Nous vous préviendrons du retour de {{ product.title }}. Répondez STOP pour vous désabonner." },
    },
    de: {
      email: {
        subject: "Wir melden uns, sobald {{ product.title }} wieder da ist",
        body: emailBody("de", {
          greeting: "Hallo{% if customer.first_name != blank %} {{ customer.first_name }}{% endif %},",
          text: "Danke für Ihr Interesse an {{ product.title }}{% if variant.title != blank %} ({{ variant.title }}){% endif %}. {{ shop.name }} schreibt Ihnen, sobald der Artikel wieder auf Lager ist.",
          cta: "Produkt ansehen",
          footer: "Sie haben sich für eine Benachrichtigung angemeldet.",
        }),
      },
      sms: { body: "{{ shop.name }}: Danke! Wir melden uns, sobald {{ product.title }} wieder da ist. Antworte STOP zum Abmelden." },
    },
    es: {
      email: {
        subject: "Te avisaremos cuando {{ product.title }} vuelva",
        body: emailBody("es", {
          greeting: "Hola{% if customer.first_name != blank %} {{ customer.first_name }}{% endif %},",
          text: "Gracias por tu interés en {{ product.title }}{% if variant.title != blank %} ({{ variant.title }}){% endif %}. {{ shop.name }} te escribirá en cuanto vuelva a estar disponible.",
          cta: "Ver el producto",
          footer: "Te suscribiste a una alerta de disponibilidad.",
        }),
      },
      sms: { body: "{{ shop.name }}: ¡gracias! Te avisaremos cuando {{ product.title }} vuelva. Responde STOP para darte de baja." },
    },
  },
};
