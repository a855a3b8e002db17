import type { ShopStorefrontConfig } from "./types.ts";

interface PlatformAnalytics {
  publish(name: string, data: Record<string, unknown>): unknown;
}

declare global {
  interface Window {
    /** The platform's storefront global; `analytics.publish` sends a custom customer event to the shop's pixels. */
    Shopify?: { analytics?: PlatformAnalytics };
  }
}

/**
 * What the widget tells the page: DOM CustomEvents (`preorder:*`, the names the service lists as
 * STOREFRONT_EVENTS in src/preorders/settings/developer.ts) when the developer settings turn events on, console diagnostics when they turn debug on, and customer events for the shop's
 * pixels (the platform's `Shopify.analytics.publish`) when the ad pixel integration is on.
 */
export class Signals {
  readonly #shop: ShopStorefrontConfig | null;

  constructor(shop: ShopStorefrontConfig | null) {
    this.#shop = shop;
  }

  emit(name: string, detail: Record<string, unknown>): void {
    if (!this.#shop?.developer.events_enabled) return;
    document.dispatchEvent(new CustomEvent(name, { detail, bubbles: true }));
  }

  debug(message: string, data?: unknown): void {
    if (!this.#shop?.developer.debug) return;
    console.info(`[preorder] ${message}`, data ?? "");
  }

  pixel(name: string, data: Record<string, unknown>): void {
    if (!this.#shop?.ad_pixel.enabled) return;
    const analytics = window.Shopify?.analytics;
    if (!analytics) {
      this.debug("ad pixel: the page has no Shopify.analytics to publish to");
      return;
    }
    analytics.publish(name, data);
  }
}
