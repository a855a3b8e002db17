import { el } from "./dom.ts";
import { displayLocale, shopStrings } from "./offer.ts";
import type { Signals } from "./signals.ts";
import type { EmbedData, VariantData } from "./types.ts";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9][0-9 ().-]{5,}$/;

/**
 * The back-in-stock "notify me" form of a sold-out variant, labelled with the shop's storefront
 * strings in the page's locale, offering the channels the shop has on, with the consent checkbox
 * when the shop requires opt-in. It posts through the app proxy (decision 0200). The signed-in
 * customer's repeat of their own live signup is answered `already_subscribed` (decision 0214): the
 * form then says `widget.already_subscribed_message`; anyone else's repeat reads as a new signup.
 */
export function notifyForm(embed: EmbedData, variant: VariantData, signals: Signals): HTMLElement {
  const locale = displayLocale(embed);
  const s = shopStrings(embed.shop, locale);
  const text = (key: string) => s[`widget.${key}`] ?? "";
  const channels = embed.shop?.back_in_stock.channels ?? ["email"];
  const optIn = embed.shop?.back_in_stock.opt_in_required ?? false;

  const open = el("button", { type: "button", class: "bis-open", "data-bis-open": "" }, [text("button_text")]);
  const form = el("form", { class: "bis-form", "data-bis-form": "", hidden: "", novalidate: "" });
  form.style.gap = "8px";
  form.append(el("h3", { class: "bis-title" }, [text("form_title")]), el("p", { class: "bis-description" }, [text("form_description")]));

  let channel = channels[0] ?? "email";
  const email = el("input", { type: "email", name: "email", placeholder: text("email_placeholder"), autocomplete: "email" });
  const phone = el("input", { type: "tel", name: "phone", placeholder: text("phone_placeholder"), autocomplete: "tel" });
  const showChannel = () => {
    email.hidden = channel !== "email";
    phone.hidden = channel !== "sms";
  };
  if (channels.length > 1) {
    const choice = el("fieldset", { class: "bis-channels" });
    for (const option of channels) {
      const radio = el("input", { type: "radio", name: "channel", value: option });
      radio.checked = option === channel;
      radio.addEventListener("change", () => {
        channel = option;
        showChannel();
      });
      choice.append(el("label", {}, [radio, " ", option === "sms" ? "SMS" : "E-mail"]));
    }
    form.append(choice);
  }
  form.append(email, phone);
  showChannel();

  let consent: HTMLInputElement | undefined;
  if (optIn) {
    consent = el("input", { type: "checkbox", name: "consent" });
    form.append(el("label", { class: "bis-consent" }, [consent, " ", text("consent_label")]));
  }
  const submit = el("button", { type: "submit", class: "bis-submit" }, [text("submit_button")]);
  const message = el("p", { class: "bis-message", role: "status", "aria-live": "polite" });
  form.append(submit, message);

  open.addEventListener("click", () => {
    form.hidden = false;
    form.style.display = "grid";
    open.hidden = true;
  });

  const say = (key: string, kind: "error" | "success") => {
    message.textContent = text(key);
    message.dataset.kind = kind;
  };

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void (async () => {
      const contact = channel === "sms" ? phone.value.trim() : email.value.trim();
      if (channel === "email" && !EMAIL.test(contact)) return say("invalid_email_message", "error");
      if (channel === "sms" && !PHONE.test(contact)) return say("invalid_phone_message", "error");
      if (consent && !consent.checked) return say("consent_label", "error");
      const body = { variant_id: variant.id, channel, locale, ...(channel === "sms" ? { phone: contact } : { email: contact }), ...(consent ? { consent: true } : {}) };
      submit.disabled = true;
      message.textContent = "";
      delete message.dataset.kind;
      try {
        const response = await fetch(`${embed.proxy_path}/back_in_stock/signups`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify(body),
        });
        if (response.status === 202) {
          const accepted = (await response.json().catch(() => ({}))) as { already_subscribed?: unknown };
          if (accepted.already_subscribed === true) {
            // Nothing new was signed up: no signup event nor pixel.
            signals.debug("already subscribed", { variant_id: variant.id, channel });
            say("already_subscribed_message", "success");
            form.dataset.done = "";
            return;
          }
          say("success_message", "success");
          form.dataset.done = "";
          const detail = { variant_id: variant.id, channel };
          signals.emit("preorder:signup", detail);
          signals.pixel("back_in_stock_signup", detail);
          return;
        }
        const answer = (await response.json().catch(() => ({}))) as { errors?: string[] };
        const errors = (answer.errors ?? []).join(" ");
        signals.debug("signup refused", { status: response.status, errors });
        if (response.status === 422 && /\bemail\b/.test(errors)) return say("invalid_email_message", "error");
        if (response.status === 422 && /\bphone\b/.test(errors)) return say("invalid_phone_message", "error");
        say("error_message", "error");
      } catch (error) {
        signals.debug("signup failed", error);
        say("error_message", "error");
      } finally {
        submit.disabled = false;
      }
    })();
  });

  return el("div", { class: "bis-widget", "data-bis-variant": String(variant.id) }, [open, form]);
}
