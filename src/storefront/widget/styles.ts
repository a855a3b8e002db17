/**
 * The widget's look, as CSS custom properties a theme can set (decision 0248), on a `:root` or any
 * ancestor of the widget:
 *
 * - `--preorder-font-family`, `--preorder-text-color`: the page's by default (inherited);
 * - `--preorder-accent`: the chosen payment option, focus rings, checkboxes;
 * - `--preorder-radius`: buttons, inputs, the option cards and the notify-me block;
 * - `--preorder-button-background`, `--preorder-button-color`: the widget's buttons;
 * - `--preorder-border-color`, `--preorder-surface`: the option cards' and the notify-me block's;
 * - `--preorder-gap`, `--preorder-max-width`; `--preorder-error-color`, `--preorder-success-color`.
 *
 * Where a theme sets none, the widget takes the look of the theme's own add-to-cart button
 * (`--preorder-theme-*`, read from it before the widget hides it), so it reads as the theme's. An
 * offer's own colours (its button, badge, disclaimer and countdown settings) are set on the element
 * itself and win over both.
 */
const STYLESHEET = `
.preorder-widget, .bis-widget {
  --_accent: var(--preorder-accent, var(--preorder-theme-button-background, currentColor));
  --_radius: var(--preorder-radius, var(--preorder-theme-radius, 4px));
  --_border: var(--preorder-border-color, rgba(127, 127, 127, 0.45));
  display: grid; gap: var(--preorder-gap, 12px); margin-block: 16px; max-width: var(--preorder-max-width, none);
  font-family: var(--preorder-font-family, inherit); color: var(--preorder-text-color, inherit); line-height: 1.4;
}
.preorder-widget *, .bis-widget * { box-sizing: border-box; }
.preorder-widget p, .bis-widget p { margin: 0; }
.preorder-button, .bis-open, .bis-submit {
  font: inherit; font-weight: 600; width: 100%; min-height: 48px; padding: 12px 20px; cursor: pointer;
  border-radius: var(--_radius);
  background: var(--preorder-button-background, var(--preorder-theme-button-background, #1a1a1a));
  color: var(--preorder-button-color, var(--preorder-theme-button-color, #ffffff));
  border: 1px solid var(--preorder-button-background, var(--preorder-theme-button-background, #1a1a1a));
}
.preorder-button:disabled, .bis-submit:disabled { opacity: 0.55; cursor: not-allowed; }
.preorder-widget :focus-visible, .bis-widget :focus-visible { outline: 2px solid var(--_accent); outline-offset: 2px; }
.preorder-delivery { font-weight: 600; }
.preorder-shipping, .preorder-remaining, .preorder-billing-text { font-size: 0.95em; }
.preorder-payment-options { border: 0; margin: 0; padding: 0; min-width: 0; display: grid; gap: 8px; }
.preorder-payment-options legend { padding: 0; margin-bottom: 6px; font-weight: 600; }
.preorder-payment-option {
  display: grid; grid-template-columns: auto 1fr; column-gap: 10px; row-gap: 2px; align-items: start; cursor: pointer;
  padding: 12px 14px; border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--preorder-surface, transparent);
}
.preorder-payment-option > input { grid-row: 1 / span 3; margin: 3px 0 0; accent-color: var(--_accent); width: 18px; height: 18px; }
.preorder-payment-option > * { grid-column: 2; }
.preorder-payment-option > input { grid-column: 1; }
.preorder-payment-option:has(input:checked) { border-color: var(--_accent); box-shadow: inset 0 0 0 1px var(--_accent); }
.preorder-payment-option:focus-within { outline: 2px solid var(--_accent); outline-offset: 2px; }
.preorder-payment-option__description { font-size: 0.92em; }
.preorder-payment-amount { font-weight: 600; font-variant-numeric: tabular-nums; }
.preorder-terms, .bis-consent { display: flex; gap: 10px; align-items: flex-start; cursor: pointer; }
.preorder-terms input, .bis-consent input { margin: 3px 0 0; width: 18px; height: 18px; flex: none; accent-color: var(--_accent); }
.preorder-countdown {
  color: var(--preorder-countdown-color, inherit); background: var(--preorder-countdown-background, transparent);
  border-radius: var(--preorder-countdown-radius, var(--_radius)); padding: 8px 12px; font-variant-numeric: tabular-nums;
}
.preorder-countdown--inline { padding: 0; display: inline; }
.preorder-countdown--banner { display: block; }
.preorder-countdown--boxed { display: inline-block; justify-self: start; }
.preorder-countdown__value { font-weight: 700; }
.preorder-disclaimer { padding: 8px 12px; font-size: 0.95em; }
.preorder-badge { display: inline-block; padding: 2px 8px; margin-left: 8px; border-radius: 999px; font-size: 0.8em; font-weight: 600; vertical-align: middle; }
.preorder-message:empty, .bis-message:empty { display: none; }
.preorder-message[data-kind="error"], .bis-message[data-kind="error"] { color: var(--preorder-error-color, #b00020); }
.preorder-message[data-kind="added"], .bis-message[data-kind="success"] { color: var(--preorder-success-color, #1b6e3a); }
.bis-form {
  display: grid; gap: 12px; padding: 16px; border: 1px solid var(--_border); border-radius: var(--_radius);
  background: var(--preorder-surface, transparent);
}
.bis-form[hidden] { display: none; }
.bis-title { font-size: 1.1em; font-weight: 600; }
.bis-field { display: grid; gap: 4px; }
.bis-field[hidden] { display: none; }
.bis-field label { font-weight: 600; font-size: 0.95em; }
.bis-field input {
  font: inherit; color: inherit; width: 100%; min-height: 44px; padding: 10px 12px;
  border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--preorder-surface, transparent);
}
.bis-channels { border: 0; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 8px 16px; }
.bis-channels legend { padding: 0; margin-bottom: 4px; font-weight: 600; font-size: 0.95em; }
.bis-channels label { display: inline-flex; gap: 6px; align-items: center; cursor: pointer; }
.bis-channels input { accent-color: var(--_accent); }
`;

const STYLE_ID = "preorder-widget-styles";

/** The widget's stylesheet, once per page, first in the head: a theme's own rules come after it and win. */
export function ensureStyles(): void {
  if (document.getElementById(STYLE_ID)) return;
  const style = document.createElement("style");
  style.id = STYLE_ID;
  style.textContent = STYLESHEET;
  document.head.prepend(style);
}

const TRANSPARENT = new Set(["transparent", "rgba(0, 0, 0, 0)"]);

/** The theme's button look (its add to cart), read before the widget hides it, as the defaults under the theme's own custom properties. */
export function adoptThemeLook(root: HTMLElement, themeButton: Element | null): void {
  if (!(themeButton instanceof HTMLElement)) return;
  const look = getComputedStyle(themeButton);
  if (!TRANSPARENT.has(look.backgroundColor)) {
    root.style.setProperty("--preorder-theme-button-background", look.backgroundColor);
    root.style.setProperty("--preorder-theme-button-color", look.color);
  }
  root.style.setProperty("--preorder-theme-radius", look.borderRadius);
}
