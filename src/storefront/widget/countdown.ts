import { el } from "./dom.ts";
import { type DurationUnit, unitLabel } from "./format.ts";
import { phrasesFor } from "./phrases.ts";
import type { OfferConfig } from "./types.ts";

const UNITS: Record<string, { unit: DurationUnit; seconds: number }> = {
  d: { unit: "day", seconds: 86_400 },
  h: { unit: "hour", seconds: 3_600 },
  m: { unit: "minute", seconds: 60 },
  s: { unit: "second", seconds: 1 },
};

export interface RemainingPart {
  unit: DurationUnit;
  value: number;
  /** The value as the format writes it: a doubled letter pads to two digits. */
  digits: string;
}

/**
 * The time left in the units the offer's format names (`dd:hh:mm:ss`, `hh:mm`, ...): the first unit
 * takes what the left-out larger units would hold (`hh:mm` shows 50 h 10 min for two days and two
 * hours).
 */
export function remainingParts(format: string, seconds: number): RemainingPart[] {
  let left = Math.max(0, Math.floor(seconds));
  return format.split(":").map((part) => {
    const { unit, seconds: size } = UNITS[part[0] ?? "s"] ?? { unit: "second", seconds: 1 };
    const value = Math.floor(left / size);
    left -= value * size;
    return { unit, value, digits: part.length > 1 ? String(value).padStart(2, "0") : String(value) };
  });
}

/**
 * The countdown element, ticking each second until `ends_at`, then removed; undefined when there is
 * nothing to count to. Each unit is its number and the locale's short unit ("2 days 14 hr", "2 j
 * 14 h"), a timer a screen reader reads on demand rather than every second.
 */
export function countdownElement(offer: OfferConfig, text: string, now: () => number, locale: string): HTMLElement | undefined {
  const { countdown } = offer;
  if (!countdown.enabled || countdown.ends_at === null) return undefined;
  const end = Date.parse(countdown.ends_at);
  if (!(end > now())) return undefined;
  const time = el("span", { class: "preorder-countdown__time", role: "timer", "aria-label": phrasesFor(locale).time_left });
  const root = el("div", { class: `preorder-countdown preorder-countdown--${countdown.style.type}`, "data-preorder-countdown": "" }, [
    el("span", { class: "preorder-countdown__text" }, [text]),
    " ",
    time,
  ]);
  // The offer's colours and radius, through the properties the stylesheet reads (styles.ts).
  root.style.setProperty("--preorder-countdown-color", countdown.style.text_color);
  root.style.setProperty("--preorder-countdown-background", countdown.style.background_color);
  root.style.setProperty("--preorder-countdown-radius", countdown.style.border_radius);
  const tick = () => {
    const left = (end - now()) / 1000;
    if (left <= 0) {
      window.clearInterval(timer);
      root.remove();
      return;
    }
    const units = remainingParts(countdown.format, left).map((part, index) =>
      el("span", { class: "preorder-countdown__unit", "data-unit": part.unit }, [
        index > 0 ? " " : "",
        el("span", { class: "preorder-countdown__value" }, [part.digits]),
        " ",
        el("span", { class: "preorder-countdown__label" }, [unitLabel(part.value, part.unit, locale)]),
      ]),
    );
    time.replaceChildren(...units);
  };
  const timer = window.setInterval(() => {
    // Taken off the page (another variant chosen): stop ticking.
    if (!root.isConnected) return window.clearInterval(timer);
    tick();
  }, 1000);
  tick();
  return root;
}
