import type { ConsoleMessage, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHIPPED_TRANSLATIONS } from "../src/account/translations.ts";
import { SHOP_ID } from "../src/platform/emulator/ids.ts";
import { STOREFRONT_EVENTS } from "../src/preorders/settings/developer.ts";
import type { ShopStorefrontConfig } from "../src/storefront/shop-config.ts";
import { invoke } from "./helpers/app.ts";
import { type TestBrowser, browserUnavailable, launchBrowser } from "./helpers/browser.ts";
import { type Json, newOffer, offerCall } from "./helpers/offers.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { mirrorVariants } from "./helpers/offer-sync.ts";
import { WIDGET_STORE, handleOf, setStock, testShopConfig } from "./helpers/storefront.ts";
import { waitFor } from "./helpers/wait.ts";

/**
 * The storefront widget in a real headless Chromium: the emulator's online store renders a product
 * page as a theme would (the offer's variant metafield and the shop metafield as JSON, the widget
 * loaded from the service as an app embed), and the widget shows the offer's settings, adds to the
 * cart with the selling plan, blocks on the terms and the limits, and posts the back-in-stock form
 * through the app proxy; the checkout runs the app's validation. Skipped without a Chromium.
 */
const unavailable = browserUnavailable();
if (unavailable) console.warn(`test/storefront-widget.browser.test.ts skipped: ${unavailable}`);

describe.skipIf(unavailable !== undefined)("the storefront widget in a headless Chromium", () => {
  const env = useTestEnv(WIDGET_STORE);
  let browser: TestBrowser;
  let page: Page;
  let legacy: number[];
  let offerId: string;
  let planId: string;
  /** Uncaught errors of the pages' scripts: none is expected. */
  const pageErrors: string[] = [];
  // The shop metafield: the test's settings, kept over the service's writes (with the live offer ids the app embed reads).
  const shopConfig = testShopConfig(env);

  const call = async (method: string, id: string, suffix: string, body?: unknown) => {
    const answer = await offerCall(env.app, env.key, method, id, suffix, body);
    expect(answer.status, `${method} ${suffix}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
    return answer.body as Json;
  };
  /** A computed style of the first match (run in the page: this file has no DOM types). */
  const css = (selector: string, property: string) => page.evaluate<string>(`getComputedStyle(document.querySelector(${JSON.stringify(selector)}))[${JSON.stringify(property)}]`);
  /** Records the details of the page's `name` events, for heard(). */
  const listen = (name: string) => page.evaluate(`window.heard = []; document.addEventListener(${JSON.stringify(name)}, (event) => window.heard.push(event.detail))`);
  const heard = () => page.evaluate<unknown[]>("window.heard");
  const productUrl = (variant: number, query = "") => `${env.emulator.origin}/products/${handleOf(env.emulator, variant)}?variant=${variant}${query}`;
  const cart = () => page.evaluate(async () => ((await (await fetch("/cart.js")).json()) as { items: { variant_id: number; quantity: number; selling_plan_allocation: { selling_plan: { id: number } } | null }[] }).items);
  const clearCart = () => page.evaluate(async () => {
    const items = ((await (await fetch("/cart.js")).json()) as { items: unknown[] }).items;
    for (let n = items.length; n > 0; n--) await fetch("/cart/change.js", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ line: 1, quantity: 0 }) });
  });

  beforeAll(async () => {
    await env.startWorker();
    legacy = (await mirrorVariants(env)).map((v) => v.legacy_id);
    for (const v of legacy) setStock(env.emulator, v, 50);
    const [first] = legacy;
    if (first === undefined) throw new Error("no variants");
    offerId = await newOffer(env, { products: { variant_ids: [first] } }, { enable: true });
    await call("PATCH", offerId, "/widget", {
      button: { text: "Reserve yours", colors: { enabled: true, text_color: "#ffffff", background_color: "#123456" } },
      badge: { enabled: true, text: "Coming soon", text_color: "#111111", background_color: "#ffcc00" },
      disclaimer: { enabled: true, text: "Preorders ship in spring.", text_color: "#222222", background_color: "#eeeeee", border_radius: "6px" },
    });
    await call("PATCH", offerId, "/checkout", { terms: { enabled: true, text: "I accept that it ships later.", disable_button_until_acknowledged: true }, mixed_cart: { allowed: false, error_message: "Check out preorders on their own." } });
    await call("PATCH", offerId, "/shipping", { display: { show_details: true, shipping_text: "Ships in March." } });
    await call("POST", offerId, "/payments/enable_option", { type: "deposit", deposit_percent: 25 });
    await call("PATCH", offerId, "/payments", { show_partial_first: true });
    await call("PATCH", offerId, "/limits", { per_order: { min: 1, max: 2 }, total: { max: 10 }, display: { show_remaining: true, quantity_limit_text: "Only {{ remaining }} left to preorder" } });
    await call("PATCH", offerId, "/countdown", {
      enabled: true,
      mode: "to_custom_date",
      custom_end_date: new Date(Date.now() + 3 * 86_400_000).toISOString(),
      text: "Preorder ends in",
      style: { type: "banner", text_color: "#aa0000", background_color: "#fff5e0", border_radius: "9px" },
    });
    await call("PATCH", offerId, "/advanced", { custom_css: ".preorder-button { letter-spacing: 3px; }" });
    await call("PATCH", offerId, "/translations", { locales: ["fr"], fields: ["widget.button.text"], translations: { fr: { "widget.button.text": "Précommander" } } });
    planId = String((await shopConfig.synced(offerId)).platform_selling_plan_id);
    // Sold out on the platform, selling past zero: on preorder (inventory.provider platform, decision 0205).
    setStock(env.emulator, first, 0, "CONTINUE");
    shopConfig.set({ developer: { events_enabled: true } });
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));
    // Every preorder:* event a page dispatches, from its first script on (for the events the widget sends while loading).
    await page.addInitScript(`window.preorderEvents = [];
      for (const name of ${JSON.stringify(STOREFRONT_EVENTS)}) document.addEventListener(name, (event) => window.preorderEvents.push([name, event.detail]));`);
  });
  afterAll(async () => {
    await browser?.close();
    expect(pageErrors).toEqual([]);
  });

  it("shows each setting of the offer on the product page", async () => {
    await page.goto(productUrl(legacy[0] ?? 0));
    const button = page.locator("[data-preorder-button]");
    await button.waitFor();
    expect((await button.innerText()).trim()).toBe("Reserve yours");
    expect([await css("[data-preorder-button]", "color"), await css("[data-preorder-button]", "backgroundColor"), await css("[data-preorder-button]", "letterSpacing")]).toEqual([
      "rgb(255, 255, 255)",
      "rgb(18, 52, 86)",
      "3px",
    ]);
    const badge = page.locator("[data-preorder-badge]");
    expect((await badge.innerText()).trim()).toBe("Coming soon");
    expect(await css("[data-preorder-badge]", "backgroundColor")).toBe("rgb(255, 204, 0)");
    expect((await page.locator(".preorder-disclaimer").innerText()).trim()).toBe("Preorders ship in spring.");
    expect(await css(".preorder-disclaimer", "borderRadius")).toBe("6px");
    expect((await page.locator(".preorder-terms").innerText()).trim()).toBe("I accept that it ships later.");
    expect((await page.locator(".preorder-shipping").innerText()).trim()).toBe("Ships in March.");
    // show_partial_first: the deposit first, and chosen.
    const options: string[] = [];
    for (const label of await page.locator("[data-payment-option]").all()) options.push(String(await label.getAttribute("data-payment-option")));
    expect(options).toEqual(["deposit", "full"]);
    expect(await page.locator("[data-payment-option='deposit'] input").isChecked()).toBe(true);
    expect((await page.locator(".preorder-countdown__text").innerText()).trim()).toBe("Preorder ends in");
    expect((await page.locator(".preorder-countdown__time").innerText()).trim()).toMatch(/^0[23] days \d{2} hr \d{2} min \d{2} sec$/);
    expect(await page.locator("[data-preorder-countdown]").getAttribute("class")).toContain("preorder-countdown--banner");
    expect([await css("[data-preorder-countdown]", "color"), await css("[data-preorder-countdown]", "backgroundColor"), await css("[data-preorder-countdown]", "borderRadius")]).toEqual([
      "rgb(170, 0, 0)",
      "rgb(255, 245, 224)",
      "9px",
    ]);
    expect(await page.locator("input[name=quantity]").getAttribute("max")).toBe("2");
    await page.locator(".preorder-remaining:not([hidden])").waitFor();
    expect((await page.locator(".preorder-remaining").innerText()).trim()).toBe("Only 10 left to preorder");
    // The theme's add to cart and buy-now buttons give way (hide_dynamic_checkout_buttons, default on).
    expect(await page.locator("button[name=add]").isVisible()).toBe(false);
    expect(await page.locator("[data-dynamic-checkout]").isVisible()).toBe(false);
    expect(await page.locator("input[name=selling_plan]").inputValue()).toBe(planId.split("/").pop());
    // events_enabled: the page heard the widget load and show its button.
    expect(await page.evaluate<[string, unknown][]>("window.preorderEvents")).toEqual([
      ["preorder:button_shown", { variant_id: legacy[0], offer_id: offerId, state: "out_of_stock" }],
      ["preorder:loaded", { template: "product", locale: "en" }],
    ]);
  });

  it("follows the variant selector: another variant without an offer and sold out gets the notify me form, and back the preorder button", async () => {
    const [onOffer, other] = [legacy[0], legacy[1]] as [number, number];
    setStock(env.emulator, other, 0);
    await page.goto(productUrl(onOffer));
    await page.locator("[data-preorder-button]").waitFor();
    await listen("preorder:variant_changed");
    await page.selectOption("select[name=id]", String(other));
    await page.locator("[data-bis-open]").waitFor();
    expect(await page.locator("[data-preorder-button]").count()).toBe(0);
    expect(await page.locator("[data-preorder-badge]").count()).toBe(0);
    expect(await page.locator("input[name=selling_plan]").inputValue()).toBe("");
    // The theme's own button is back (sold out, as the theme shows it).
    expect(await page.locator("button[name=add]").isVisible()).toBe(true);
    await page.selectOption("select[name=id]", String(onOffer));
    await page.locator("[data-preorder-button]").waitFor();
    expect(await page.locator("[data-bis-open]").count()).toBe(0);
    expect(await page.locator("[data-preorder-widget], .preorder-widget").count()).toBe(1);
    expect(await page.locator("button[name=add]").isVisible()).toBe(false);
    const productId = env.emulator.store.variant(onOffer)?.productId;
    expect(await heard()).toEqual([
      { product_id: productId, variant_id: other },
      { product_id: productId, variant_id: onOffer },
    ]);
    setStock(env.emulator, other, 50);
  });

  it("the terms checkbox blocks the button until ticked", async () => {
    await page.goto(productUrl(legacy[0] ?? 0));
    const button = page.locator("[data-preorder-button]");
    await button.waitFor();
    expect(await button.isDisabled()).toBe(true);
    await page.locator(".preorder-terms input").check();
    expect(await button.isDisabled()).toBe(false);
    await page.locator(".preorder-terms input").uncheck();
    expect(await button.isDisabled()).toBe(true);
  });

  it("a click on the button puts the variant in the cart with its selling plan, and tells the page (events_enabled)", async () => {
    await page.goto(productUrl(legacy[0] ?? 0));
    await clearCart();
    await listen("preorder:added_to_cart");
    await page.locator(".preorder-terms input").check();
    await page.locator("[data-preorder-button]").click();
    await page.locator(".preorder-message[data-kind='added']").waitFor();
    const items = await cart();
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ variant_id: legacy[0], quantity: 1, selling_plan_allocation: { selling_plan: { id: Number(planId.split("/").pop()) } } });
    expect(await heard()).toEqual([{ variant_id: legacy[0], quantity: 1, offer_id: offerId, selling_plan: Number(planId.split("/").pop()) }]);
  });

  it("the per-order limit blocks: 3 against a max of 2, and 1 more than the cart leaves", async () => {
    await page.goto(productUrl(legacy[0] ?? 0));
    await clearCart();
    await page.locator(".preorder-terms input").check();
    await page.locator("input[name=quantity]").fill("3");
    await page.locator("[data-preorder-button]").click();
    await page.locator(".preorder-message[data-kind='error']").waitFor();
    expect(await page.locator(".preorder-message").innerText()).toContain("at most 2");
    expect(await cart()).toEqual([]);
    await page.locator("input[name=quantity]").fill("2");
    await page.locator("[data-preorder-button]").click();
    await page.locator(".preorder-message[data-kind='added']").waitFor();
    await page.locator("input[name=quantity]").fill("1");
    await page.locator("[data-preorder-button]").click();
    await page.locator(".preorder-message[data-kind='error']").waitFor();
    expect(await page.locator(".preorder-message").innerText()).toContain("2 already in your cart");
    expect((await cart()).map((i) => i.quantity)).toEqual([2]);
  });

  it("total.max: a click past what is left of the offer is refused, counting its units already in the cart (decision 0211)", async () => {
    // A product no other test puts on an offer (legacy[14]'s product holds legacy[15]).
    const variant = legacy[20] ?? 0;
    const id = await newOffer(env, { products: { variant_ids: [variant] } }, { enable: true });
    await call("PATCH", id, "/limits", { total: { max: 3 } });
    await shopConfig.synced(id);
    // Sold out on the platform, selling past zero: the preorder button shows.
    setStock(env.emulator, variant, 0, "CONTINUE");
    await page.goto(productUrl(variant));
    await clearCart();
    await page.locator("input[name=quantity]").fill("4");
    await page.locator("[data-preorder-button]").click();
    await page.locator(".preorder-message[data-kind='error']").waitFor();
    expect(await page.locator(".preorder-message").innerText()).toBe("Only 3 left to preorder.");
    expect(await cart()).toEqual([]);
    await page.locator("input[name=quantity]").fill("2");
    await page.locator("[data-preorder-button]").click();
    await page.locator(".preorder-message[data-kind='added']").waitFor();
    await page.locator("[data-preorder-button]").click();
    await page.locator(".preorder-message[data-kind='error']").waitFor();
    expect(await page.locator(".preorder-message").innerText()).toBe("Only 3 left to preorder (2 already in your cart).");
    expect((await cart()).map((i) => i.quantity)).toEqual([2]);
    await clearCart();

    // With a plan per payment option (decision 0212), the units on either plan count against the offer's total.
    await call("POST", id, "/payments/enable_option", { type: "deposit", deposit_percent: 25 });
    await shopConfig.synced(id);
    await page.goto(productUrl(variant));
    await clearCart();
    await page.locator("[data-payment-option='full'] input").check();
    await page.locator("input[name=quantity]").fill("2");
    await page.locator("[data-preorder-button]").click();
    await page.locator(".preorder-message[data-kind='added']").waitFor();
    await page.locator("[data-payment-option='deposit'] input").check();
    await page.locator("[data-preorder-button]").click();
    await page.locator(".preorder-message[data-kind='error']").waitFor();
    expect(await page.locator(".preorder-message").innerText()).toBe("Only 3 left to preorder (2 already in your cart).");
    await page.locator("input[name=quantity]").fill("1");
    await page.locator("[data-preorder-button]").click();
    await page.locator(".preorder-message[data-kind='added']").waitFor();
    expect(new Set((await cart()).map((i) => i.selling_plan_allocation?.selling_plan.id)).size).toBe(2);
    await clearCart();
  });

  it("mixed_cart.allowed false: the widget refuses to add beside an in-stock item, with the offer's message", async () => {
    await page.goto(productUrl(legacy[0] ?? 0));
    await clearCart();
    await page.evaluate(async (id) => {
      await fetch("/cart/add.js", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id, quantity: 1 }) });
    }, legacy[2]);
    await page.locator(".preorder-terms input").check();
    await page.locator("[data-preorder-button]").click();
    await page.locator(".preorder-message[data-kind='error']").waitFor();
    expect((await page.locator(".preorder-message").innerText()).trim()).toBe("Check out preorders on their own.");
    expect((await cart()).map((i) => i.variant_id)).toEqual([legacy[2]]);
  });

  it("mixed_cart.allowed false, the other way: an in-stock item's page refuses to join the preorder in the cart, with the offer's message", async () => {
    await page.goto(productUrl(legacy[0] ?? 0));
    await clearCart();
    await page.locator(".preorder-terms input").check();
    await page.locator("[data-preorder-button]").click();
    await page.locator(".preorder-message[data-kind='added']").waitFor();
    await page.goto(productUrl(legacy[2] ?? 0));
    await page.locator("button[name=add]").click();
    await page.locator(".preorder-message[data-kind='error']").waitFor();
    expect((await page.locator(".preorder-message").innerText()).trim()).toBe("Check out preorders on their own.");
    expect((await cart()).map((i) => i.variant_id)).toEqual([legacy[0]]);
    // Without the preorder the theme's form goes through as before.
    await clearCart();
    await Promise.all([page.waitForURL((url) => url.pathname === "/cart"), page.locator("button[name=add]").click()]);
    expect((await cart()).map((i) => i.variant_id)).toEqual([legacy[2]]);
    await clearCart();
  });

  it("the checkout refuses a limit break and a mixed cart with the app's messages, then takes the order with its selling plan", async () => {
    await page.goto(productUrl(legacy[0] ?? 0));
    await clearCart();
    const checkout = () =>
      page.evaluate(async () => {
        const response = await fetch("/checkout", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "buyer@example.com" }) });
        return { status: response.status, body: (await response.json()) as { errors?: { localizedMessage: string }[]; order?: { id: string; name: string } } };
      });
    const add = (id: number | undefined, quantity: number, plan?: string) =>
      page.evaluate(
        async ([variant, count, sellingPlan]) => {
          const response = await fetch("/cart/add.js", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: variant, quantity: count, ...(sellingPlan ? { selling_plan: Number(sellingPlan) } : {}) }) });
          return response.status;
        },
        [id, quantity, plan?.split("/").pop()] as const,
      );
    // Past the widget (straight to the cart API): 3 on the plan against per_order.max 2.
    expect(await add(legacy[0], 3, planId)).toBe(200);
    let answer = await checkout();
    expect(answer.status).toBe(422);
    expect(answer.body.errors?.map((e) => e.localizedMessage)).toEqual([expect.stringContaining("at most 2")]);
    await clearCart();
    expect(await add(legacy[0], 1, planId)).toBe(200);
    expect(await add(legacy[2], 1)).toBe(200);
    answer = await checkout();
    expect(answer.status).toBe(422);
    expect(answer.body.errors?.map((e) => e.localizedMessage)).toEqual(["Check out preorders on their own."]);
    // Nothing reached the platform's orders.
    const ordersBefore = env.emulator.store.orders.length;
    await clearCart();
    expect(await add(legacy[0], 2, planId)).toBe(200);
    answer = await checkout();
    expect(answer.status).toBe(201);
    const order = env.emulator.store.orders.at(-1);
    expect(env.emulator.store.orders.length).toBe(ordersBefore + 1);
    expect(order?.lineItems.map((l) => [l.variantId, l.quantity, l.sellingPlanId])).toEqual([[legacy[0], 2, Number(planId.split("/").pop())]]);
    // orders/create reached the service, which took it as a preorder order of the offer.
    const row = await waitFor("the preorder order", async () => {
      const { rows } = await env.app.pool.query<{ name: string }>("select name from preorder_orders where shop_id = $1 and platform_order_id = $2", [env.shopId, answer.body.order?.id]);
      return rows[0];
    });
    expect(row.name).toBe(answer.body.order?.name);
    expect(await cart()).toEqual([]);
  });

  it("translates the offer's texts to the page's locale when the shop shows several languages", async () => {
    shopConfig.set({ languages: { multi_language_enabled: true } });
    await page.goto(`${env.emulator.origin}/fr/products/${handleOf(env.emulator, legacy[0] ?? 0)}`);
    await page.locator("[data-preorder-button]").waitFor();
    expect((await page.locator("[data-preorder-button]").innerText()).trim()).toBe("Précommander");
    // Off: the shop's default language everywhere.
    shopConfig.set({ languages: { multi_language_enabled: false } });
    await page.goto(`${env.emulator.origin}/products/${handleOf(env.emulator, legacy[0] ?? 0)}?locale=fr`);
    await page.locator("[data-preorder-button]").waitFor();
    expect((await page.locator("[data-preorder-button]").innerText()).trim()).toBe("Reserve yours");
    shopConfig.set({ developer: { events_enabled: true } });
  });

  it("a sold-out variant without an offer gets the notify me form in the shop's strings; its signup is stored once, and published to the pixels", async () => {
    const soldOut = legacy[4] ?? 0;
    setStock(env.emulator, soldOut, 0);
    shopConfig.set({
      developer: { events_enabled: true },
      back_in_stock: { channels: ["email", "sms"], opt_in_required: true },
      languages: { strings: { en: { "widget.button_text": "Tell me when it is back", "widget.submit_button": "Sign me up" } } },
      ad_pixel: { enabled: true },
    });
    await page.goto(productUrl(soldOut));
    await listen("preorder:signup");
    const open = page.locator("[data-bis-open]");
    await open.waitFor();
    expect((await open.innerText()).trim()).toBe("Tell me when it is back");
    expect(await page.locator("[data-preorder-button]").count()).toBe(0);
    await open.click();
    expect(await page.locator(".bis-channels input").count()).toBe(2);
    expect((await page.locator(".bis-consent").innerText()).trim()).toBe("I agree to receive a message when this item is back in stock.");
    await page.fill(".bis-form input[name=email]", "not-an-address");
    await page.locator(".bis-submit").click();
    expect((await page.locator(".bis-message").innerText()).trim()).toBe("Please enter a valid e-mail address.");
    await page.fill(".bis-form input[name=email]", "Waiting@Example.com");
    await page.locator(".bis-consent input").check();
    expect((await page.locator(".bis-submit").innerText()).trim()).toBe("Sign me up");
    await page.locator(".bis-submit").click();
    await page.locator(".bis-message[data-kind='success']").waitFor();
    expect((await page.locator(".bis-message").innerText()).trim()).toBe("Thank you! We will notify you when this item is back in stock.");
    const signups = async () =>
      (await env.app.pool.query<{ contact: string; consent: boolean; variant_id: string; market_id: string | null }>("select contact, consent, variant_id, market_id from bis_signups where shop_id = $1", [env.shopId])).rows;
    // The signup is in the page's market (its alert waits for stock there, decision 0246).
    const market = await page.evaluate<string | null>(`JSON.parse(document.getElementById("preorder-app-embed").textContent).market_id`);
    expect(market).toMatch(/^gid:\/\/shopify\/Market\/\d+$/);
    expect(await signups()).toEqual([{ contact: "waiting@example.com", consent: true, variant_id: `gid://shopify/ProductVariant/${soldOut}`, market_id: market }]);
    expect(await heard()).toEqual([{ variant_id: soldOut, channel: "email" }]);
    expect(await page.evaluate("window.Shopify.analytics.published")).toEqual([{ name: "back_in_stock_signup", data: { variant_id: soldOut, channel: "email" } }]);
    // The same shopper again: answered, stored once.
    await page.locator(".bis-submit").click();
    await page.locator(".bis-message[data-kind='success']").waitFor();
    expect(await signups()).toHaveLength(1);
    shopConfig.set({ developer: { events_enabled: true } });
  });

  it("a signed-in customer's repeat of their own signup shows the shop's already_subscribed_message in the page's language; signed out, the same repeat reads as a new signup (decision 0214)", async () => {
    const soldOut = legacy[12] ?? 0;
    setStock(env.emulator, soldOut, 0);
    const shopper = env.emulator.store.addCustomer({ email: "Signed.In@Example.com", phone: null, firstName: "Lin" });
    const already = "Vous suivez déjà cet article : nous vous écrirons.";
    shopConfig.set({
      developer: { events_enabled: true },
      languages: { multi_language_enabled: true, strings: { fr: { ...SHIPPED_TRANSLATIONS.fr, "widget.already_subscribed_message": already } } },
    });
    const success = SHIPPED_TRANSLATIONS.fr?.["widget.success_message"] ?? "";
    expect(success).not.toBe("");
    const signUp = async (expected: string) => {
      await page.goto(`${env.emulator.origin}/fr/products/${handleOf(env.emulator, soldOut)}?variant=${soldOut}`);
      await page.locator("[data-bis-open]").click();
      await page.fill(".bis-form input[name=email]", "signed.in@example.com");
      await page.locator(".bis-submit").click();
      await page.locator(".bis-message", { hasText: expected }).waitFor();
      return (await page.locator(".bis-message").innerText()).trim();
    };
    await page.goto(`${env.emulator.origin}/account/login?customer_id=${shopper.id}`);
    expect(await signUp(success)).toBe(success);
    // The same customer again, with their own address: told they are already on the list, in French.
    expect(await signUp(already)).toBe(already);
    // The same again on the same form.
    await page.locator(".bis-submit").click();
    await page.locator(".bis-message", { hasText: already }).waitFor();
    // Signed out, the same address's repeat is anyone's: answered as a new signup.
    await page.goto(`${env.emulator.origin}/account/logout`);
    expect(await signUp(success)).toBe(success);
    const { rows } = await env.app.pool.query<{ contact: string; customer_id: string | null }>("select contact, customer_id from bis_signups where shop_id = $1 and variant_id = $2", [
      env.shopId,
      `gid://shopify/ProductVariant/${soldOut}`,
    ]);
    expect(rows).toEqual([{ contact: "signed.in@example.com", customer_id: `gid://shopify/Customer/${shopper.id}` }]);
    setStock(env.emulator, soldOut, 50);
    shopConfig.set({ developer: { events_enabled: true } });
  });

  it("the French page shows the form in the shop's French strings", async () => {
    const soldOut = legacy[4] ?? 0;
    shopConfig.set({ languages: { multi_language_enabled: true, strings: { fr: { "widget.button_text": "Me prévenir" } } } });
    await page.goto(`${env.emulator.origin}/fr/products/${handleOf(env.emulator, soldOut)}?variant=${soldOut}`);
    await page.locator("[data-bis-open]").waitFor();
    expect((await page.locator("[data-bis-open]").innerText()).trim()).toBe("Me prévenir");
    shopConfig.set({ developer: { events_enabled: true } });
  });

  it("markets: no preorder button in a market the offer leaves out, and the checkout refuses it there", async () => {
    const variant = legacy[6] ?? 0;
    const { rows } = await env.app.pool.query<{ id: string; countries: string[] }>("select id, countries from markets where shop_id = $1 order by is_primary desc", [env.shopId]);
    const [primary, other] = rows;
    if (!primary || !other) throw new Error("two markets expected");
    const id = await newOffer(env, { products: { variant_ids: [variant] } }, { enable: true });
    await call("PATCH", id, "/markets", { enabled: true, applies_to_all_markets: false, market_ids: [other.id] });
    const plan = String((await shopConfig.synced(id)).platform_selling_plan_id).split("/").pop();
    setStock(env.emulator, variant, 0, "CONTINUE");
    await page.goto(productUrl(variant, `&country=${primary.countries[0]}`));
    await page.locator("button[name=add]").waitFor();
    expect(await page.locator("[data-preorder-button]").count()).toBe(0);
    await page.goto(productUrl(variant, `&country=${other.countries[0]}`));
    await page.locator("[data-preorder-button]").waitFor();
    expect(await page.locator("button[name=add]").isVisible()).toBe(false);
    // Back in the primary market, a cart holding the plan is refused at checkout.
    await page.goto(productUrl(variant, `&country=${primary.countries[0]}`));
    await clearCart();
    const status = await page.evaluate(`(async () => {
      await fetch("/cart/add.js", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: ${variant}, quantity: 1, selling_plan: ${plan} }) });
      const response = await fetch("/checkout", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      return [response.status, (await response.json()).errors.map((e) => e.localizedMessage)];
    })()`);
    expect(status).toEqual([422, [expect.stringContaining("cannot be preordered in your market")]]);
    await clearCart();
  });

  it("inventory.provider: platform keeps the theme's add to cart while the platform has stock; app shows the preorder (after_launch, with its override)", async () => {
    const variant = legacy[7] ?? 0;
    const id = await newOffer(env, { products: { variant_ids: [variant] } }, { enable: true });
    await call("POST", id, "/advanced/set_button_text_override", { state: "after_launch", text: "Preorder, ships soon" });
    await shopConfig.synced(id);
    setStock(env.emulator, variant, 50, "CONTINUE");
    await page.goto(productUrl(variant));
    await page.locator("button[name=add]").waitFor();
    expect(await page.locator("[data-preorder-button]").count()).toBe(0);
    await call("PATCH", id, "/inventory", { provider: "app" });
    await shopConfig.synced(id);
    await page.goto(productUrl(variant));
    await page.locator("[data-preorder-button]").waitFor();
    expect((await page.locator("[data-preorder-button]").innerText()).trim()).toBe("Preorder, ships soon");
    expect(await page.locator(".preorder-widget").getAttribute("data-preorder-state")).toBe("after_launch");
    expect(await page.locator("[data-preorder-button]").isDisabled()).toBe(false);
    // With the app as the provider the offer's stock is its total limit: none left, no preorder.
    await call("PATCH", id, "/limits", { total: { max: 0 } });
    await call("POST", id, "/advanced/set_button_text_override", { state: "out_of_stock", text: "All preorders taken" });
    await shopConfig.synced(id);
    await page.goto(productUrl(variant));
    await page.locator("[data-preorder-button][data-sold-out]").waitFor({ state: "attached" });
    expect(await page.locator("[data-preorder-button]").isDisabled()).toBe(true);
    expect((await page.locator("[data-preorder-button]").innerText()).trim()).toBe("All preorders taken");
  });

  it("the other display states: before_launch while the delivery date is ahead, out_of_stock once launched with the variant sold out", async () => {
    const [ahead, soldOut] = [legacy[8], legacy[9]] as [number, number];
    setStock(env.emulator, soldOut, 0);
    const launching = await newOffer(env, { products: { variant_ids: [ahead] } }, { enable: true });
    await call("PATCH", launching, "/shipping", { delivery: { type: "on_date", date: new Date(Date.now() + 30 * 86_400_000).toISOString() } });
    await call("POST", launching, "/advanced/set_button_text_override", { state: "before_launch", text: "Reserve before launch" });
    const restocking = await newOffer(env, { products: { variant_ids: [soldOut] } }, { enable: true });
    await call("POST", restocking, "/advanced/set_button_text_override", { state: "out_of_stock", text: "Preorder the next batch" });
    await shopConfig.synced(launching);
    await shopConfig.synced(restocking);
    setStock(env.emulator, ahead, 0, "CONTINUE");
    await page.goto(productUrl(ahead));
    await page.locator("[data-preorder-button]").waitFor();
    expect([await page.locator(".preorder-widget").getAttribute("data-preorder-state"), (await page.locator("[data-preorder-button]").innerText()).trim()]).toEqual(["before_launch", "Reserve before launch"]);
    await page.goto(productUrl(soldOut));
    await page.locator("[data-preorder-button]").waitFor();
    expect([await page.locator(".preorder-widget").getAttribute("data-preorder-state"), (await page.locator("[data-preorder-button]").innerText()).trim()]).toEqual(["out_of_stock", "Preorder the next batch"]);
  });

  it("the offer's default_locale: a page in it shows the offer's own texts, another locale its translation", async () => {
    const variant = legacy[10] ?? 0;
    const id = await newOffer(env, { products: { variant_ids: [variant] } }, { enable: true });
    await call("POST", id, "/widget/set_button_text", { text: "Vorbestellen" });
    await call("PATCH", id, "/translations", { default_locale: "de", locales: ["en"], fields: ["widget.button.text"], translations: { en: { "widget.button.text": "Preorder (English)" } } });
    await shopConfig.synced(id);
    setStock(env.emulator, variant, 0, "CONTINUE");
    shopConfig.set({ developer: { events_enabled: true }, languages: { multi_language_enabled: true } });
    await page.goto(`${env.emulator.origin}/de/products/${handleOf(env.emulator, variant)}?variant=${variant}`);
    await page.locator("[data-preorder-button]").waitFor();
    expect((await page.locator("[data-preorder-button]").innerText()).trim()).toBe("Vorbestellen");
    await page.goto(`${env.emulator.origin}/en/products/${handleOf(env.emulator, variant)}?variant=${variant}`);
    await page.locator("[data-preorder-button]").waitFor();
    expect((await page.locator("[data-preorder-button]").innerText()).trim()).toBe("Preorder (English)");
    shopConfig.set({ developer: { events_enabled: true } });
  });

  it("the collection page shows the offer's badge on its product's card, unless the shop turns collection badges off", async () => {
    const product = env.emulator.store.productOf(env.emulator.store.variant(legacy[0] ?? 0) ?? env.emulator.store.variants[0]!);
    const collection = env.emulator.store.collections.find((c) => product.collectionIds.includes(c.id));
    if (!collection) throw new Error("the product is in no collection");
    await page.goto(`${env.emulator.origin}/collections/${collection.handle}`);
    const badge = page.locator(`[data-product-card]:has(a[href="/products/${product.handle}"]) [data-preorder-badge]`);
    await badge.waitFor();
    expect((await badge.innerText()).trim()).toBe("Coming soon");
    shopConfig.set({ storefront: { show_badge_on_collection_pages: false } });
    await page.goto(`${env.emulator.origin}/collections/${collection.handle}`);
    await page.locator("[data-product-card]").first().waitFor();
    expect(await page.locator("[data-preorder-badge]").count()).toBe(0);
    shopConfig.set({ developer: { events_enabled: true } });
  });

  it("the shop's storefront switches and the developer selectors decide what the widget touches; the shipping line item property reaches the cart", async () => {
    const variant = legacy[0] ?? 0;
    await call("PATCH", offerId, "/shipping", { display: { shipping_line_item_property_enabled: true } });
    await shopConfig.synced(offerId);
    // Off: no badge on the product page, the buy-now buttons stay.
    shopConfig.set({ storefront: { show_badge_on_product_pages: false, hide_dynamic_checkout_buttons: false } });
    await page.goto(productUrl(variant));
    await page.locator("[data-preorder-button]").waitFor();
    expect(await page.locator("[data-preorder-badge]").count()).toBe(0);
    expect(await page.locator("[data-dynamic-checkout]").isVisible()).toBe(true);
    // Selectors: the badge goes into what `price` names, and the button the widget replaces is what `add_to_cart_button` names.
    shopConfig.set({
      storefront: { hide_dynamic_checkout_buttons: false },
      developer: { events_enabled: true, selectors: { price: "main h1", add_to_cart_button: "[data-dynamic-checkout] button" } },
    });
    await page.goto(productUrl(variant));
    await page.locator("[data-preorder-button]").waitFor();
    expect(await page.locator("main h1 [data-preorder-badge]").count()).toBe(1);
    expect(await page.locator("[data-dynamic-checkout] button:not([data-preorder-button])").first().isVisible()).toBe(false);
    expect(await page.locator("button[name=add]").isVisible()).toBe(true);
    expect(await page.locator("[data-dynamic-checkout] button + .preorder-widget").count()).toBe(1);
    // The shipping text goes with the line as a property, and the ticked terms too.
    await clearCart();
    await page.locator(".preorder-terms input").check();
    await page.locator("[data-preorder-button]").click();
    await page.locator(".preorder-message[data-kind='added']").waitFor();
    const [line] = await page.evaluate<{ properties: Record<string, string> }[]>("fetch('/cart.js').then((r) => r.json()).then((c) => c.items)");
    expect(line?.properties).toEqual({
      Shipping: "Ships in March.",
      "Payment option": "Pay a deposit",
      _preorder_terms_accepted: "yes",
      _preorder_mixed_cart: "Check out preorders on their own.",
    });
    await clearCart();
    // The collection card selector: a card it does not match gets no badge.
    const product = env.emulator.store.productOf(env.emulator.store.variant(variant) ?? (env.emulator.store.variants[0] as NonNullable<ReturnType<typeof env.emulator.store.variant>>));
    const collection = env.emulator.store.collections.find((c) => product.collectionIds.includes(c.id));
    if (collection) {
      shopConfig.set({ developer: { selectors: { collection_product_card: `[data-product-card]:not(:has(a[href="/products/${product.handle}"]))` } } });
      await page.goto(`${env.emulator.origin}/collections/${collection.handle}`);
      await page.locator("[data-product-card]").first().waitFor();
      expect(await page.locator("[data-preorder-badge]").count()).toBe(0);
    }
    await call("PATCH", offerId, "/shipping", { display: { shipping_line_item_property_enabled: false } });
    await shopConfig.synced(offerId);
    shopConfig.set({ developer: { events_enabled: true } });
  });

  it("storefront.selectors.product_form: on a theme whose product form the default does not find (product.ajax posts to /cart/add.js), the widget follows the form the shop names: its variant, quantity and selling plan, with the line properties", async () => {
    const { store } = env.emulator;
    const [shown, onOffer] = store.variantsOf(store.productOf(store.variant(legacy[14] ?? 0) ?? (store.variants[0] as NonNullable<ReturnType<typeof store.variant>>))).map((v) => v.id) as [number, number];
    expect(shown).not.toBe(onOffer);
    const id = await newOffer(env, { products: { variant_ids: [onOffer] } }, { enable: true });
    await call("PATCH", id, "/shipping", { display: { show_details: true, shipping_text: "Ships in June.", shipping_line_item_property_enabled: true } });
    await call("PATCH", id, "/limits", { per_order: { min: 1, max: 5 } });
    const plan = String((await shopConfig.synced(id)).platform_selling_plan_id).split("/").pop();
    setStock(env.emulator, onOffer, 0, "CONTINUE");
    // The theme's alternate template, chosen as the platform chooses one: ?view=<suffix>. It opens on the in-stock variant.
    const url = `${env.emulator.origin}/products/${handleOf(env.emulator, onOffer)}?view=ajax`;
    const form = "[data-ajax-product-form]";
    const loaded = () => page.waitForFunction("window.preorderEvents.some((event) => event[0] === 'preorder:loaded')");

    // The default selector finds no product form here: the shopper's choice of the preorder variant changes nothing.
    shopConfig.set({ developer: { events_enabled: true } });
    await page.goto(url);
    await loaded();
    await page.selectOption(`${form} select[name=id]`, String(onOffer));
    // The theme heard the change (its script moved the URL to the variant); the widget did not (it renders in the same change event).
    expect(new URL(page.url()).searchParams.get("variant")).toBe(String(onOffer));
    expect(await page.locator("[data-preorder-button]").count()).toBe(0);
    expect(await page.locator(`${form} input[name=selling_plan]`).inputValue()).toBe("");
    expect(await page.locator(`${form} button[name=add]`).isVisible()).toBe(true);

    // The shop names the theme's form: the widget reads its variant input and quantity and puts the plan in it.
    shopConfig.set({ developer: { events_enabled: true, selectors: { product_form: form } } });
    await page.goto(url);
    await loaded();
    expect(await page.locator("[data-preorder-button]").count()).toBe(0);
    await page.selectOption(`${form} select[name=id]`, String(onOffer));
    await page.locator(`${form} [data-preorder-button]`).waitFor();
    expect(await page.locator(`${form} button[name=add]`).isVisible()).toBe(false);
    expect(await page.locator(`${form} input[name=selling_plan]`).inputValue()).toBe(plan);
    expect(await page.locator(`${form} input[name=quantity]`).getAttribute("max")).toBe("5");
    await clearCart();
    await page.fill(`${form} input[name=quantity]`, "3");
    await page.locator("[data-preorder-button]").click();
    await page.locator(".preorder-message[data-kind='added']").waitFor();
    const items = await page.evaluate<{ variant_id: number; quantity: number; selling_plan_allocation: { selling_plan: { id: number } } | null; properties: Record<string, string> }[]>(
      "fetch('/cart.js').then((r) => r.json()).then((c) => c.items)",
    );
    expect(items.map((i) => [i.variant_id, i.quantity, i.selling_plan_allocation?.selling_plan.id, i.properties.Shipping])).toEqual([[onOffer, 3, Number(plan), "Ships in June."]]);
    await clearCart();
    shopConfig.set({ developer: { events_enabled: true } });
  });

  it("a variant's own shipping text and max count (decision 0203) and the billing text reach the page", async () => {
    const variant = legacy[5] ?? 0;
    const id = await newOffer(env, { products: { variant_ids: [variant] } }, { enable: true });
    await call("POST", id, `/variants/${variant}/set_shipping_text`, { text: "Ships from our second warehouse." });
    await call("POST", id, `/variants/${variant}/set_max_count`, { max_count: 4 });
    await call("POST", id, "/payments/set_billing_widget_text", { text: "Nothing is charged until it ships." });
    await shopConfig.synced(id);
    setStock(env.emulator, variant, 0, "CONTINUE");
    await page.goto(productUrl(variant));
    await page.locator("[data-preorder-button]").waitFor();
    expect((await page.locator(".preorder-shipping").innerText()).trim()).toBe("Ships from our second warehouse.");
    expect(await page.locator("input[name=quantity]").getAttribute("max")).toBe("4");
    expect((await page.locator(".preorder-billing-text").innerText()).trim()).toBe("Nothing is charged until it ships.");
  });

  it("the shop's settings changed through the API reach the page through the shop metafield the service writes", async () => {
    const soldOut = legacy[3] ?? 0;
    setStock(env.emulator, soldOut, 0);
    const patch = async (path: string, body: unknown) => {
      const answer = await invoke(env.app, "PATCH", path, { key: env.key, body });
      expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
    };
    await patch("/preorders/developer_settings", { storefront: { events_enabled: true, debug: true } });
    await patch("/account/translations/en", { strings: { "widget.button_text": "Email me when it returns" } });
    await patch("/account/integrations", { ad_pixel: { enabled: true } });
    const written = await waitFor("the shop metafield", async () => {
      const metafield = env.emulator.store.metafield("SHOP", SHOP_ID, `app--${env.emulator.appId}--preorder`, "shop");
      const value = metafield ? (JSON.parse(metafield.value) as ShopStorefrontConfig) : undefined;
      return value?.ad_pixel.enabled && value.developer.debug && value.languages.strings.en?.["widget.button_text"] === "Email me when it returns" ? value : undefined;
    });
    expect(written.developer.events_enabled).toBe(true);
    const logged: string[] = [];
    const onConsole = (message: ConsoleMessage) => logged.push(message.text());
    page.on("console", onConsole);
    await page.goto(productUrl(soldOut));
    await page.locator("[data-bis-open]").waitFor();
    page.off("console", onConsole);
    expect((await page.locator("[data-bis-open]").innerText()).trim()).toBe("Email me when it returns");
    // debug: the widget says what it decided on the console.
    expect(logged.some((line) => line.startsWith("[preorder] sold out without an offer"))).toBe(true);
    await page.locator("[data-bis-open]").click();
    await page.fill(".bis-form input[name=email]", "api-settings@example.com");
    await page.locator(".bis-submit").click();
    await page.locator(".bis-message[data-kind='success']").waitFor();
    expect(await page.evaluate("window.Shopify.analytics.published")).toEqual([{ name: "back_in_stock_signup", data: { variant_id: soldOut, channel: "email" } }]);
  });

  it("each payment option is its own selling plan: pay in full is charged all of it, the deposit part, and both arrive as the offer's preorders (decision 0212)", async () => {
    const variant = legacy[12] ?? 0;
    const choice = await newOffer(env, { products: { variant_ids: [variant] } }, { enable: true });
    await call("POST", choice, "/payments/enable_option", { type: "deposit", deposit_percent: 25 });
    await call("POST", choice, "/payments/set_option_copy", { type: "full", title: "All at once", description: "The whole price today." });
    await call("POST", choice, "/payments/set_option_copy", { type: "deposit", title: "A quarter now", description: "The rest before it ships." });
    await shopConfig.synced(choice);
    const { rows: plans } = await env.app.pool.query<{ platform_selling_plan_id: string; payment_option: string }>(
      "select platform_selling_plan_id, payment_option from preorder_offer_selling_plans where offer_id = $1 and removed_at is null",
      [choice],
    );
    const planOf = (option: string) => Number(plans.find((p) => p.payment_option === option)?.platform_selling_plan_id.split("/").pop());
    expect(plans).toHaveLength(2);
    setStock(env.emulator, variant, 0, "CONTINUE");
    const priceCents = env.emulator.store.variant(variant)?.priceCents ?? 0;

    const buy = async (option: "full" | "deposit", email: string) => {
      await page.goto(productUrl(variant));
      await clearCart();
      const label = page.locator(`[data-payment-option='${option}']`);
      // The option's title and description, and what it charges now and later for the variant's price (decision 0248).
      const money = (cents: number) => `$${(cents / 100).toFixed(2)}`;
      const deposit = Math.round(priceCents / 4);
      expect((await label.innerText()).trim().split("\n")).toEqual(
        option === "full"
          ? ["All at once", "The whole price today.", `Pay ${money(priceCents)} now`]
          : ["A quarter now", "The rest before it ships.", `Pay ${money(deposit)} now, ${money(priceCents - deposit)} later`],
      );
      await label.locator("input").check();
      // The theme's own form takes the chosen option's plan too.
      expect(await page.locator("input[name=selling_plan]").inputValue()).toBe(String(planOf(option)));
      await page.locator("[data-preorder-button]").click();
      await page.locator(".preorder-message[data-kind='added']").waitFor();
      expect((await cart()).map((item) => item.selling_plan_allocation?.selling_plan.id)).toEqual([planOf(option)]);
      const answer = await page.evaluate(async (buyer) => {
        const response = await fetch("/checkout", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: buyer }) });
        return { status: response.status, body: (await response.json()) as { order?: { id: string } } };
      }, email);
      expect(answer.status).toBe(201);
      const order = env.emulator.store.orders.at(-1);
      expect(order?.lineItems.map((l) => l.sellingPlanId)).toEqual([planOf(option)]);
      return { id: String(answer.body.order?.id), order };
    };

    const full = await buy("full", "all-at-once@example.com");
    expect([full.order?.financialStatus, full.order?.totalCents, full.order?.outstandingCents]).toEqual(["paid", priceCents, 0]);
    const deposit = await buy("deposit", "a-quarter@example.com");
    expect([deposit.order?.financialStatus, deposit.order?.totalCents, deposit.order?.outstandingCents]).toEqual(["partially_paid", priceCents, priceCents - Math.round(priceCents / 4)]);

    // Both reach the service as the offer's preorder orders, with the option chosen; only the deposit leaves a balance.
    type Ingested = { status: string; balance_amount: string; balance_due: boolean; offer_id: string; payment_option: string };
    const ingested = (id: string, status: string) =>
      waitFor(`the preorder order ${id}`, async () => {
        const { rows } = await env.app.pool.query<Ingested>(
          `select o.status, o.balance_amount::text, o.balance_due_at is not null as balance_due, l.offer_id, l.payment_option
           from preorder_orders o join preorder_order_lines l on l.order_id = o.id where o.shop_id = $1 and o.platform_order_id = $2`,
          [env.shopId, id],
        );
        return rows[0]?.status === status ? rows : undefined;
      });
    expect(await ingested(full.id, "placed")).toEqual([{ status: "placed", balance_amount: "0.00", balance_due: false, offer_id: choice, payment_option: "full" }]);
    expect(await ingested(deposit.id, "awaiting_balance")).toEqual([
      { status: "awaiting_balance", balance_amount: ((priceCents - Math.round(priceCents / 4)) / 100).toFixed(2), balance_due: true, offer_id: choice, payment_option: "deposit" },
    ]);
  });

  it("an offer split into orders sells without a platform selling plan: the widget's line names the offer, and the order arrives as its preorder order and is split", async () => {
    const variant = legacy[11] ?? 0;
    const split = await newOffer(env, { products: { variant_ids: [variant] } }, { enable: true });
    await call("PATCH", split, "/shipping", { fulfillment: { split: { enabled: true, type: "orders", order_suffix: "-PRE" } } });
    expect((await shopConfig.synced(split)).platform_selling_plan_id).toBeNull();
    setStock(env.emulator, variant, 0, "CONTINUE");
    await page.goto(productUrl(variant));
    await clearCart();
    await page.locator("[data-preorder-button]").click();
    await page.locator(".preorder-message[data-kind='added']").waitFor();
    const answer = await page.evaluate(async () => {
      const response = await fetch("/checkout", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "split-buyer@example.com" }) });
      return { status: response.status, body: (await response.json()) as { order?: { id: string } } };
    });
    expect(answer.status).toBe(201);
    expect(env.emulator.store.orders.at(-1)?.lineItems[0]?.properties).toContainEqual({ name: "_preorder_offer", value: split });
    const row = await waitFor("the preorder order, split", async () => {
      const { rows } = await env.app.pool.query<{ order_split: { type: string; state: string } | null }>("select order_split from preorder_orders where shop_id = $1 and platform_order_id = $2", [
        env.shopId,
        answer.body.order?.id,
      ]);
      return rows[0]?.order_split?.state === "done" ? rows[0].order_split : undefined;
    }, 30_000);
    expect(row.type).toBe("orders");
  });
});
