import { el } from "./dom.ts";
import { displayLocale, shopStrings } from "./offer.ts";
import { phrasesFor } from "./phrases.ts";
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
 * Each field has its label (the shop's placeholder strings), the form is named by its title, and
 * opening it moves the focus to its first field; a refused field is marked invalid and focused.
 */
export function notifyForm(embed: EmbedData, variant: VariantData, signals: Signals): HTMLElement {
  const locale = displayLocale(embed);
  const s = shopStrings(embed.shop, locale);
  const text = (key: string) => s[`widget.${key}`] ?? "";
  const phrases = phrasesFor(locale);
  const channels = embed.shop?.back_in_stock.channels ?? ["email"];
  const optIn = embed.shop?.back_in_stock.opt_in_required ?? false;
  const id = (part: string) => `bis-${part}-${variant.id}`;

  const open = el("button", { type: "button", class: "bis-open", "data-bis-open": "", "aria-expanded": "false", "aria-controls": id("form") }, [text("button_text")]);
  const form = el("form", { class: "bis-form", id: id("form"), "data-bis-form": "", hidden: "", novalidate: "", "aria-labelledby": id("title") });
  // Its title a paragraph, not a heading: the widget cannot know the theme's heading levels around it.
  form.append(el("p", { class: "bis-title", id: id("title") }, [text("form_title")]), el("p", { class: "bis-description" }, [text("form_description")]));

  let channel = channels[0] ?? "email";
  const field = (name: "email" | "phone", type: string, label: string, autocomplete: string) => {
    const input = el("input", { type, name, id: id(name), autocomplete, required: "" });
    const wrapper = el("div", { class: "bis-field", "data-bis-field": name }, [el("label", { for: id(name) }, [label]), input]);
    return { input, wrapper };
  };
  const email = field("email", "email", text("email_placeholder"), "email");
  const phone = field("phone", "tel", text("phone_placeholder"), "tel");
  const contact = () => (channel === "sms" ? phone.input : email.input);
  const showChannel = () => {
    email.wrapper.hidden = channel !== "email";
    phone.wrapper.hidden = channel !== "sms";
  };
  if (channels.length > 1) {
    const choice = el("fieldset", { class: "bis-channels" }, [el("legend", {}, [phrases.notify_by])]);
    for (const option of channels) {
      const radio = el("input", { type: "radio", name: "channel", value: option });
      radio.checked = option === channel;
      radio.addEventListener("change", () => {
        channel = option;
        showChannel();
      });
      choice.append(el("label", {}, [radio, option === "sms" ? phrases.sms : phrases.email]));
    }
    form.append(choice);
  }
  form.append(email.wrapper, phone.wrapper);
  showChannel();

  let consent: HTMLInputElement | undefined;
  if (optIn) {
    consent = el("input", { type: "checkbox", name: "consent" });
    form.append(el("label", { class: "bis-consent" }, [consent, text("consent_label")]));
  }
  const submit = el("button", { type: "submit", class: "bis-submit" }, [text("submit_button")]);
  const message = el("p", { class: "bis-message", id: id("message"), role: "status", "aria-live": "polite" });
  form.append(submit, message);

  open.addEventListener("click", () => {
    form.hidden = false;
    open.hidden = true;
    open.setAttribute("aria-expanded", "true");
    contact().focus();
  });

  const say = (key: string, kind: "error" | "success") => {
    message.textContent = text(key);
    message.dataset.kind = kind;
  };
  /** A refused field: marked invalid, described by the message, and focused. */
  const refuse = (input: HTMLInputElement, key: string) => {
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", message.id);
    say(key, "error");
    input.focus();
  };
  for (const input of [email.input, phone.input]) input.addEventListener("input", () => input.removeAttribute("aria-invalid"));

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void (async () => {
      const value = contact().value.trim();
      if (channel === "email" && !EMAIL.test(value)) return refuse(email.input, "invalid_email_message");
      if (channel === "sms" && !PHONE.test(value)) return refuse(phone.input, "invalid_phone_message");
      if (consent && !consent.checked) {
        say("consent_label", "error");
        return consent.focus();
      }
      const body = {
        variant_id: variant.id,
        channel,
        locale,
        ...(channel === "sms" ? { phone: value } : { email: value }),
        ...(consent ? { consent: true } : {}),
        // The page's market: the alert waits for stock where the shopper buys (decision 0246).
        ...(embed.market_id === null ? {} : { market_id: embed.market_id }),
      };
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
        if (response.status === 422 && /\bemail\b/.test(errors)) return refuse(email.input, "invalid_email_message");
        if (response.status === 422 && /\bphone\b/.test(errors)) return refuse(phone.input, "invalid_phone_message");
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
