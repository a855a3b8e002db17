import { el } from "./dom.ts";
import type { OfferConfig } from "./types.ts";

const UNIT_SECONDS: Record<string, number> = { d: 86_400, h: 3_600, m: 60, s: 1 };

/**
 * The time left as the offer's format says (`dd:hh:mm:ss`, `hh:mm`, ...): the first unit takes
 * what the left-out larger units would hold (`hh:mm` shows 50:10 for two days and two hours); a
 * doubled letter pads to two digits.
 */
export function formatRemaining(format: string, seconds: number): string {
  let left = Math.max(0, Math.floor(seconds));
  return format
    .split(":")
    .map((part) => {
      const size = UNIT_SECONDS[part[0] ?? "s"] ?? 1;
      const value = Math.floor(left / size);
      left -= value * size;
      return part.length > 1 ? String(value).padStart(2, "0") : String(value);
    })
    .join(":");
}

/** The countdown element, ticking each second until `ends_at`, then removed; undefined when there is nothing to count to. */
export function countdownElement(offer: OfferConfig, text: string, now: () => number): HTMLElement | undefined {
  const { countdown } = offer;
  if (!countdown.enabled || countdown.ends_at === null) return undefined;
  const end = Date.parse(countdown.ends_at);
  if (!(end > now())) return undefined;
  const time = el("span", { class: "preorder-countdown__time" });
  const root = el("div", { class: `preorder-countdown preorder-countdown--${countdown.style.type}`, "data-preorder-countdown": "" }, [
    el("span", { class: "preorder-countdown__text" }, [text]),
    " ",
    time,
  ]);
  root.style.color = countdown.style.text_color;
  root.style.backgroundColor = countdown.style.background_color;
  root.style.borderRadius = countdown.style.border_radius;
  root.style.padding = countdown.style.type === "inline" ? "0" : "8px 12px";
  if (countdown.style.type === "banner") root.style.display = "block";
  if (countdown.style.type === "boxed") root.style.display = "inline-block";
  const tick = () => {
    const left = (end - now()) / 1000;
    if (left <= 0) {
      window.clearInterval(timer);
      root.remove();
      return;
    }
    time.textContent = formatRemaining(countdown.format, left);
  };
  const timer = window.setInterval(() => {
    // Taken off the page (another variant chosen): stop ticking.
    if (!root.isConnected) return window.clearInterval(timer);
    tick();
  }, 1000);
  tick();
  return root;
}
