import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHIPPED_TRANSLATIONS } from "../src/account/translations.ts";
import { type TestBrowser, browserUnavailable, launchBrowser } from "./helpers/browser.ts";
import { type Json, newOffer, offerCall } from "./helpers/offers.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { mirrorVariants } from "./helpers/offer-sync.ts";
import { WIDGET_STORE, handleOf, setStock, testShopConfig } from "./helpers/storefront.ts";

/**
 * What a shopper sees of the widget beyond its settings (issue 31, decision 0248), in a real
 * headless Chromium at a desktop and a phone's size: the delivery under the button in the page's
 * locale, what a deposit charges now and later in the page's currency, a countdown with localised
 * units, labels and focus in the notify-me form, the theme's look by default and its custom
 * properties over it; axe-core finds no serious or critical violation in any of the widget's
 * states. Skipped without a Chromium.
 */
const unavailable = browserUnavailable();
if (unavailable) console.warn(`test/storefront-widget-look.browser.test.ts skipped: ${unavailable}`);

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const VIEWPORTS = [
  { name: "desktop", width: 1280, height: 900 },
  { name: "mobile", width: 390, height: 844 },
] as const;

interface AxeCount {
  state: string;
  violations: number;
  serious_or_critical: number;
  ids: string[];
}

describe.skipIf(unavailable !== undefined).each(VIEWPORTS)("the widget's look and accessibility at $name size ($width x $height)", (viewport) => {
  const env = useTestEnv(WIDGET_STORE);
  let browser: TestBrowser;
  let page: Page;
  let legacy: number[];
  const pageErrors: string[] = [];
  const axeCounts: AxeCount[] = [];
  const shopConfig = testShopConfig(env);
  const DELIVERY_DATE = "2027-01-15T00:00:00.000Z";

  const call = async (method: string, id: string, suffix: string, body?: unknown) => {
    const answer = await offerCall(env.app, env.key, method, id, suffix, body);
    expect(answer.status, `${method} ${suffix}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
    return answer.body as Json;
  };
  const variantAt = (index: number) => {
    const id = legacy[index];
    if (id === undefined) throw new Error(`no variant ${index}`);
    return id;
  };
  const productUrl = (variant: number, locale = "") => `${env.emulator.origin}${locale ? `/${locale}` : ""}/products/${handleOf(env.emulator, variant)}?variant=${variant}`;
  const priceOf = (variant: number) => env.emulator.store.variant(variant)?.priceCents ?? 0;
  const usd = (cents: number) => `$${(cents / 100).toFixed(2)}`;
  // Intl puts a no-break space between a number and its unit ("3\u00a0jours"): read as a space.
  const text = async (selector: string) => (await page.locator(selector).innerText()).replace(/[\u00a0\u202f]/g, " ").trim();
  /** A computed style of the first match (run in the page: this file has no DOM types). */
  const css = (selector: string, property: string) => page.evaluate<string>(`getComputedStyle(document.querySelector(${JSON.stringify(selector)}))[${JSON.stringify(property)}]`);

  /** axe-core over the widget's elements on the page now; the counts are kept for the report at the end. */
  const axe = async (state: string) => {
    await page.addScriptTag({ content: AXE_SOURCE });
    const result = await page.evaluate<{ id: string; impact: string | null; nodes: number }[]>(`(async () => {
      const include = [".preorder-widget", ".bis-widget", ".preorder-badge"].filter((s) => document.querySelector(s)).map((s) => [s]);
      if (include.length === 0) throw new Error("no widget on the page");
      const found = await window.axe.run({ include }, { resultTypes: ["violations"] });
      return found.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
    })()`);
    const serious = result.filter((v) => v.impact === "serious" || v.impact === "critical");
    axeCounts.push({ state, violations: result.length, serious_or_critical: serious.length, ids: result.map((v) => `${v.id} (${v.impact})`) });
    expect(serious, `${state}: ${JSON.stringify(serious)}`).toEqual([]);
  };
  const noSidewaysScroll = async () => {
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(viewport.width);
  };

  let dated: string;
  let withinDays: string;
  beforeAll(async () => {
    await env.startWorker();
    legacy = (await mirrorVariants(env)).map((v) => v.legacy_id);
    for (const v of legacy) setStock(env.emulator, v, 50);
    // A dated delivery, a deposit of 30% after a 10% discount, a countdown and the terms; the button in the theme's colours.
    dated = await newOffer(env, { products: { variant_ids: [variantAt(0)] } }, { enable: true });
    await call("PATCH", dated, "/shipping", { delivery: { type: "on_date", date: DELIVERY_DATE } });
    await call("PATCH", dated, "/widget", { badge: { enabled: true, text: "Preorder" } });
    await call("POST", dated, "/payments/enable_option", { type: "deposit", deposit_percent: 30 });
    await call("PATCH", dated, "/payments", { show_partial_first: true, discount: { type: "percentage", value: 10 } });
    await call("PATCH", dated, "/countdown", { enabled: true, mode: "to_custom_date", custom_end_date: new Date(Date.now() + 2 * 86_400_000 + 5 * 3_600_000).toISOString() });
    await call("PATCH", dated, "/checkout", { terms: { enabled: true, text: "I understand this item ships later.", disable_button_until_acknowledged: true } });
    // Within days, with the merchant's own shipping text.
    withinDays = await newOffer(env, { products: { variant_ids: [variantAt(2)] } }, { enable: true });
    await call("PATCH", withinDays, "/shipping", { delivery: { type: "asap", days: 3 }, display: { shipping_text: "Ships from our Lyon warehouse." } });
    await call("PATCH", withinDays, "/limits", { per_order: { max: 2 } });
    await shopConfig.synced(dated);
    await shopConfig.synced(withinDays);
    setStock(env.emulator, variantAt(0), 0, "CONTINUE");
    setStock(env.emulator, variantAt(2), 0, "CONTINUE");
    // Sold out without an offer: the notify-me form.
    setStock(env.emulator, variantAt(4), 0);
    shopConfig.set({ languages: { multi_language_enabled: true, strings: { en: { ...SHIPPED_TRANSLATIONS.en }, fr: { ...SHIPPED_TRANSLATIONS.fr } } } });
    browser = await launchBrowser({ viewport: { width: viewport.width, height: viewport.height } });
    page = await browser.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));
  });
  afterAll(async () => {
    await browser?.close();
    // The figures the closing note reports: axe-core's violations per state, at this size.
    console.log(`axe-core at ${viewport.name} (${viewport.width}x${viewport.height}):\n${axeCounts.map((c) => `  ${c.state}: ${c.violations} violations, ${c.serious_or_critical} serious or critical${c.ids.length ? ` [${c.ids.join(", ")}]` : ""}`).join("\n")}`);
    expect(pageErrors).toEqual([]);
  });

  it("a dated delivery shows under the button in the page's locale, in place of the default 'as soon as it is available'", async () => {
    await page.goto(productUrl(variantAt(0)));
    await page.locator("[data-preorder-button]").waitFor();
    expect(await text("[data-preorder-button] + [data-preorder-delivery]")).toBe("Ships by Jan 15, 2027");
    expect(await page.locator(".preorder-shipping").count()).toBe(0);
    await noSidewaysScroll();
    await axe("preorder, terms not ticked (button disabled)");
    await page.locator(".preorder-terms input").check();
    await axe("preorder, terms ticked");

    await page.goto(productUrl(variantAt(0), "fr"));
    await page.locator("[data-preorder-button]").waitFor();
    expect(await text("[data-preorder-delivery]")).toBe("Expédié d’ici le 15 janv. 2027");
    await axe("preorder in French");
  });

  it("a delivery within days: 'Ships in 3 days' under the button, beside the merchant's own shipping text; the widget's refusals in the page's language", async () => {
    await page.goto(productUrl(variantAt(2)));
    await page.locator("[data-preorder-button]").waitFor();
    expect(await text("[data-preorder-delivery]")).toBe("Ships in 3 days");
    expect(await text(".preorder-shipping")).toBe("Ships from our Lyon warehouse.");
    await axe("preorder within days, pay in full only");
    await page.goto(productUrl(variantAt(2), "fr"));
    await page.locator("[data-preorder-delivery]").waitFor();
    expect(await text("[data-preorder-delivery]")).toBe("Expédié sous 3 jours");
    // The widget's own refusals are in the page's language too.
    await page.fill("input[name=quantity]", "3");
    await page.locator("[data-preorder-button]").click();
    await page.locator(".preorder-message[data-kind='error']").waitFor();
    expect(await text(".preorder-message")).toBe("Vous pouvez précommander au plus 2 exemplaires de cet article par commande.");
    await axe("preorder refused, in French");
  });

  it("each payment option says what it charges now and later in the page's currency, after the discount, for the quantity chosen", async () => {
    await page.goto(productUrl(variantAt(0)));
    await page.locator("[data-payment-amount]").first().waitFor();
    const unit = Math.round((priceOf(variantAt(0)) * 90) / 100);
    const deposit = (quantity: number) => Math.round((unit * quantity * 30) / 100);
    expect(await text("[data-payment-amount='deposit']")).toBe(`Pay ${usd(deposit(1))} now, ${usd(unit - deposit(1))} later`);
    expect(await text("[data-payment-amount='full']")).toBe(`Pay ${usd(unit)} now`);
    expect(await page.locator(".preorder-payment-options legend").innerText()).toBe("Payment options");
    await page.fill("input[name=quantity]", "2");
    expect(await text("[data-payment-amount='deposit']")).toBe(`Pay ${usd(deposit(2))} now, ${usd(unit * 2 - deposit(2))} later`);
    expect(await text("[data-payment-amount='full']")).toBe(`Pay ${usd(unit * 2)} now`);
    // The chosen option's card is marked in the accent (the theme's button colour by default).
    expect(await css("[data-payment-option='deposit']", "borderTopColor")).toBe("rgb(26, 26, 26)");
    await page.locator("[data-payment-option='full']").click();
    expect(await css("[data-payment-option='full']", "borderTopColor")).toBe("rgb(26, 26, 26)");
    await axe("preorder, pay in full chosen");
  });

  it("the countdown counts in the locale's units", async () => {
    await page.goto(productUrl(variantAt(0)));
    await page.locator(".preorder-countdown__unit").first().waitFor();
    expect(await text(".preorder-countdown__time")).toMatch(/^0[12] days \d{2} hr \d{2} min \d{2} sec$/);
    expect(await page.locator(".preorder-countdown__time").getAttribute("role")).toBe("timer");
    await page.goto(productUrl(variantAt(0), "fr"));
    await page.locator(".preorder-countdown__unit").first().waitFor();
    expect(await text(".preorder-countdown__time")).toMatch(/^0[12] j \d{2} h \d{2} min \d{2} s$/);
  });

  it("the notify-me form: a labelled field that takes the focus when it opens, a refused address marked and focused, in a styled block", async () => {
    await page.goto(productUrl(variantAt(4)));
    const open = page.locator("[data-bis-open]");
    await open.waitFor();
    expect(await open.getAttribute("aria-expanded")).toBe("false");
    await axe("notify-me closed");
    await open.click();
    expect(await open.getAttribute("aria-expanded")).toBe("true");
    // The field has its label (the shop's string), and the focus is in it, not on <body>.
    const email = page.getByLabel("Your e-mail address");
    expect(await email.getAttribute("name")).toBe("email");
    expect(await page.evaluate<string | null>("document.activeElement && document.activeElement.getAttribute('name')")).toBe("email");
    expect(await page.locator(".bis-form").getAttribute("aria-labelledby")).toBeTruthy();
    await axe("notify-me open");
    await email.fill("not-an-address");
    await page.locator(".bis-submit").click();
    await page.locator(".bis-message[data-kind='error']").waitFor();
    expect(await email.getAttribute("aria-invalid")).toBe("true");
    expect(await page.evaluate<string | null>("document.activeElement && document.activeElement.getAttribute('name')")).toBe("email");
    await axe("notify-me refused address");
    await email.fill("look@example.com");
    await page.locator(".bis-submit").click();
    await page.locator(".bis-message[data-kind='success']").waitFor();
    await axe("notify-me signed up");
    // A block of its own: bordered, padded, rounded as the theme's button; its buttons in the theme's colours.
    expect([await css(".bis-form", "borderTopWidth"), await css(".bis-form", "paddingTop"), await css(".bis-form", "borderTopLeftRadius")]).toEqual(["1px", "16px", "6px"]);
    expect([await css(".bis-submit", "backgroundColor"), await css(".bis-submit", "color")]).toEqual(["rgb(26, 26, 26)", "rgb(255, 255, 255)"]);
    await noSidewaysScroll();
  });

  it("takes the theme's font by default, and the theme's custom properties over it", async () => {
    await page.goto(productUrl(variantAt(4)));
    await page.locator("[data-bis-open]").waitFor();
    expect(await css(".bis-widget", "fontFamily")).toBe(await css("body", "fontFamily"));
    await page.addStyleTag({
      content: ":root { --preorder-font-family: Georgia, serif; --preorder-radius: 14px; --preorder-accent: rgb(200, 0, 100); --preorder-button-background: rgb(0, 70, 140); --preorder-button-color: rgb(255, 255, 240); --preorder-surface: rgb(250, 250, 240); }",
    });
    await page.locator("[data-bis-open]").click();
    expect(await css(".bis-widget", "fontFamily")).toBe("Georgia, serif");
    expect([await css(".bis-submit", "backgroundColor"), await css(".bis-submit", "color"), await css(".bis-submit", "borderTopLeftRadius")]).toEqual([
      "rgb(0, 70, 140)",
      "rgb(255, 255, 240)",
      "14px",
    ]);
    expect([await css(".bis-form", "backgroundColor"), await css(".bis-form input[name=email]", "borderTopLeftRadius")]).toEqual(["rgb(250, 250, 240)", "14px"]);

    await page.goto(productUrl(variantAt(0)));
    await page.locator("[data-preorder-button]").waitFor();
    await page.addStyleTag({ content: ":root { --preorder-radius: 14px; --preorder-accent: rgb(200, 0, 100); }" });
    expect([await css("[data-payment-option='deposit']", "borderTopLeftRadius"), await css("[data-payment-option='deposit']", "borderTopColor")]).toEqual(["14px", "rgb(200, 0, 100)"]);
  });

  it("the collection page's badge passes axe-core too", async () => {
    const variant = env.emulator.store.variant(variantAt(0));
    if (!variant) throw new Error("no such variant");
    const product = env.emulator.store.productOf(variant);
    const collection = env.emulator.store.collections.find((c) => product.collectionIds.includes(c.id));
    if (!collection) throw new Error("the product is in no collection");
    await page.goto(`${env.emulator.origin}/collections/${collection.handle}`);
    await page.locator("[data-preorder-badge]").first().waitFor();
    await axe("collection badge");
  });
});
