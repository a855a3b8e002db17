import { beforeAll, describe, expect, it } from "vitest";
import { seedPreorderOrder } from "./helpers/preorders.ts";
import { createShopWithKey } from "./helpers/app.ts";
import { type Json, createOffer, newOffer, offerCall, seedCatalog, syncState } from "./helpers/offers.ts";
import { useTestEnv } from "./helpers/fixture.ts";

/** Limits, checkout, inventory, markets, countdown, integrations, translations and advanced. */

const env = useTestEnv();

beforeAll(async () => {
  await seedCatalog(env.app.pool, env.shopId);
});

const patch = (id: string, group: string, body: unknown) => offerCall(env.app, env.key, "PATCH", id, `/${group}`, body);
const action = (id: string, path: string, body: unknown = {}) => offerCall(env.app, env.key, "POST", id, `/${path}`, body);
const read = async (id: string, group: string) => (await offerCall(env.app, env.key, "GET", id, `/${group}`)).body as Json;

describe("every group: GET equals the full offer's group", () => {
  it("answers each group as the full offer shows it", async () => {
    const id = await newOffer(env);
    const offer = (await offerCall(env.app, env.key, "GET", id)).body as Json;
    for (const group of ["widget", "shipping", "payments", "limits", "checkout", "inventory", "products", "markets", "countdown", "integrations", "translations", "advanced"]) {
      const answer = await offerCall(env.app, env.key, "GET", id, `/${group}`);
      expect(answer.status, group).toBe(200);
      expect(answer.body, group).toEqual(offer[group]);
    }
  });
});

describe("limits", () => {
  it("merges, and shows total.current_count derived from the orders", async () => {
    const id = await newOffer(env);
    await seedPreorderOrder(env.app.pool, env.shopId, { lines: [{ quantity: 7, offerId: id }] });
    const answer = await patch(id, "limits", { per_order: { max: 3 }, total: { max: 100 }, display: { show_remaining: true } });
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({
      per_order: { min: 1, max: 3 },
      per_customer: { max: null },
      total: { max: 100, current_count: 7 },
      display: { show_remaining: true, quantity_limit_text: "Only {{ remaining }} left to preorder" },
    });
  });

  it("keeps limits sane: integers >= 0, min <= max", async () => {
    const id = await newOffer(env);
    expect((await patch(id, "limits", { per_order: { min: -1, max: 2.5 }, total: { max: "ten" } })).body).toEqual({
      errors: ["per_order.min must be at least 0", "per_order.max must be an integer", "total.max must be an integer"],
    });
    await patch(id, "limits", { per_order: { max: 5 } });
    expect((await patch(id, "limits", { per_order: { min: 6 } })).body).toEqual({ errors: ["per_order.min must be at most per_order.max (5)"] });
    expect((await patch(id, "limits", { per_order: { max: 0 } })).body).toEqual({ errors: ["per_order.max must be at least per_order.min (1)"] });
    expect((await patch(id, "limits", { per_customer: { max: 0 } })).body).toEqual({ errors: ["per_customer.max must be at least per_order.min (1)"] });
    expect((await patch(id, "limits", { total: { current_count: 3 } })).body).toEqual({ errors: ["total.current_count is not allowed"] });
    expect((await patch(id, "limits", { per_order: { min: 2, max: null } })).body).toMatchObject({ per_order: { min: 2, max: null } });
  });
});

describe("checkout", () => {
  it("PATCH merges; the named actions set terms text, mixed-cart message and order tags", async () => {
    const id = await newOffer(env);
    expect((await patch(id, "checkout", { terms: { enabled: true, disable_button_until_acknowledged: true } })).body).toMatchObject({
      terms: { enabled: true, disable_button_until_acknowledged: true },
    });
    expect((await action(id, "checkout/set_terms_text", { text: "I agree to wait." })).body).toMatchObject({ terms: { enabled: true, text: "I agree to wait." } });
    expect((await action(id, "checkout/set_mixed_cart_error_message", { message: "Separate carts, please." })).body).toMatchObject({
      mixed_cart: { allowed: true, error_message: "Separate carts, please." },
    });
    const tags = await action(id, "checkout/set_order_tags", { tags: ["pre", "spring", "pre"] });
    expect(tags.body).toMatchObject({ order_tags: { tags: ["pre", "spring"] } });
    // replaces the whole set
    expect((await action(id, "checkout/set_order_tags", { tags: ["only"] })).body).toMatchObject({ order_tags: { tags: ["only"] } });
    expect((await action(id, "checkout/set_order_tags", { tags: [] })).body).toMatchObject({ order_tags: { tags: [] } });
  });

  it("validates tags and the terms rules", async () => {
    const id = await newOffer(env);
    expect((await action(id, "checkout/set_order_tags", { tags: ["ok", "a,b", ""] })).body).toEqual({
      errors: ["tags.1 must not contain a comma", "tags.2 must not be empty"],
    });
    expect((await action(id, "checkout/set_order_tags", { tags: Array.from({ length: 251 }, (_, i) => `t${i}`) })).body).toEqual({
      errors: ["tags must contain at most 250 items"],
    });
    expect((await action(id, "checkout/set_order_tags", { tags: "preorder" })).body).toEqual({ errors: ["tags must be an array"] });
    expect((await patch(id, "checkout", { terms: { disable_button_until_acknowledged: true } })).body).toEqual({
      errors: ["terms.disable_button_until_acknowledged cannot be true while terms.enabled is false"],
    });
    expect((await patch(id, "checkout", { mixed_cart: { allowed: false, error_message: "" } })).body).toEqual({
      errors: ["mixed_cart.error_message must not be empty while mixed_cart.allowed is false"],
    });
    expect((await action(id, "checkout/set_terms_text", { text: "" })).body).toEqual({ errors: ["text must not be empty"] });
  });
});

describe("inventory", () => {
  it("set_reservation_timing and the continue_selling rule", async () => {
    const id = await newOffer(env);
    expect((await action(id, "inventory/set_reservation_timing", { timing: "on_fulfillment" })).body).toEqual({
      provider: "platform",
      reservation: { timing: "on_fulfillment" },
      continue_selling: { enabled: true, auto_apply_to_new_variants: false },
    });
    expect((await action(id, "inventory/set_reservation_timing", { timing: "later" })).body).toEqual({
      errors: ["timing must be one of: on_sale, on_fulfillment"],
    });
    expect((await patch(id, "inventory", { continue_selling: { enabled: false, auto_apply_to_new_variants: true } })).body).toEqual({
      errors: ["continue_selling.auto_apply_to_new_variants cannot be true while continue_selling.enabled is false"],
    });
    expect((await patch(id, "inventory", { provider: "app", continue_selling: { auto_apply_to_new_variants: true } })).body).toMatchObject({
      provider: "app",
      continue_selling: { enabled: true, auto_apply_to_new_variants: true },
    });
  });
});

describe("markets", () => {
  it("enabled for chosen markets needs market ids that exist in the shop's markets", async () => {
    const id = await newOffer(env);
    expect((await patch(id, "markets", { enabled: true, applies_to_all_markets: false })).body).toEqual({
      errors: ["market_ids is required when enabled is true and applies_to_all_markets is false"],
    });
    expect((await patch(id, "markets", { enabled: true, applies_to_all_markets: false, market_ids: ["m-fr", "m-xx"] })).body).toEqual({
      errors: ["market_ids.1 must be a market of this shop (unknown id m-xx)"],
    });
    const ok = await patch(id, "markets", { enabled: true, applies_to_all_markets: false, market_ids: ["m-fr", "m-us", "m-fr"] });
    expect(ok.status).toBe(202);
    expect(ok.body).toEqual({ enabled: true, applies_to_all_markets: false, market_ids: ["m-fr", "m-us"] });
  });

  it("applies_to_all_markets clears stored ids and refuses ids sent with it", async () => {
    const id = await newOffer(env, { markets: { enabled: true, applies_to_all_markets: false, market_ids: ["m-us"] } });
    expect((await patch(id, "markets", { applies_to_all_markets: true, market_ids: ["m-fr"] })).body).toEqual({
      errors: ["market_ids must be empty when applies_to_all_markets is true"],
    });
    expect((await patch(id, "markets", { applies_to_all_markets: true })).body).toEqual({ enabled: true, applies_to_all_markets: true, market_ids: [] });
  });

  it("does not see another shop's markets", async () => {
    const other = await createShopWithKey(env.app.pool, "Other");
    const offer = await createOffer(env.app, other.apiKey);
    const answer = await offerCall(env.app, other.apiKey, "PATCH", offer.id, "/markets", { enabled: true, applies_to_all_markets: false, market_ids: ["m-fr"] });
    expect(answer.body).toEqual({ errors: ["market_ids.0 must be a market of this shop (unknown id m-fr)"] });
  });
});

describe("countdown", () => {
  it("set_style sets the look (at least one field)", async () => {
    const id = await newOffer(env);
    expect((await action(id, "countdown/set_style", { type: "banner", background_color: "#101010", border_radius: "2px" })).body).toMatchObject({
      style: { type: "banner", text_color: "#000000", background_color: "#101010", border_radius: "2px" },
    });
    expect((await action(id, "countdown/set_style", { text_color: "black", type: "huge" })).body).toEqual({
      errors: ["type must be one of: inline, banner, boxed", "text_color must be a hex color"],
    });
    expect((await action(id, "countdown/set_style", {})).body).toEqual({
      errors: ["type is required unless text_color, background_color or border_radius is given"],
    });
  });

  it("set_custom_end_date sets the date and switches the mode, also the first date of an enabled countdown", async () => {
    const id = await newOffer(env);
    // An enabled countdown to the schedule's end: the mode alone cannot become to_custom_date (no date yet).
    await patch(id, "countdown", { enabled: true });
    expect((await patch(id, "countdown", { mode: "to_custom_date" })).status).toBe(422);
    // The named action sets the first date (it answered 409 here before: issue 31).
    const set = await action(id, "countdown/set_custom_end_date", { date: "2026-12-31T23:00:00+02:00" });
    expect(set.status).toBe(202);
    expect(set.body).toMatchObject({ enabled: true, mode: "to_custom_date", custom_end_date: "2026-12-31T21:00:00.000Z" });
    expect(await read(id, "countdown")).toMatchObject({ mode: "to_custom_date", custom_end_date: "2026-12-31T21:00:00.000Z" });
    const moved = await action(id, "countdown/set_custom_end_date", { date: "2027-01-15T10:00:00Z" });
    expect(moved.body).toMatchObject({ mode: "to_custom_date", custom_end_date: "2027-01-15T10:00:00.000Z" });
    expect((await action(id, "countdown/set_custom_end_date", { date: "2026-12-31" })).body).toEqual({ errors: ["date must be an ISO 8601 timestamp"] });
    // leaving the mode drops the date
    expect((await patch(id, "countdown", { mode: "to_schedule_end" })).body).toMatchObject({ mode: "to_schedule_end", custom_end_date: null });
  });

  it("checks format, custom date and mode together", async () => {
    const id = await newOffer(env);
    expect((await patch(id, "countdown", { format: "ss:mm" })).body).toEqual({ errors: ["format must be a pattern of units such as dd:hh:mm:ss"] });
    expect((await patch(id, "countdown", { format: "d:h:m" })).body).toMatchObject({ format: "d:h:m" });
    expect((await patch(id, "countdown", { custom_end_date: "2026-12-31T00:00:00Z" })).body).toEqual({
      errors: ["custom_end_date is not allowed unless mode is to_custom_date"],
    });
    expect((await patch(id, "countdown", { enabled: true, mode: "to_custom_date" })).body).toEqual({
      errors: ["custom_end_date is required when the countdown is enabled with mode to_custom_date"],
    });
    expect((await patch(id, "countdown", { enabled: true, mode: "to_custom_date", custom_end_date: "2026-12-31T00:00:00Z" })).status).toBe(202);
  });
});

describe("integrations", () => {
  it("skip_inventory_check needs pos", async () => {
    const id = await newOffer(env);
    expect((await patch(id, "integrations", { pos: { skip_inventory_check: true } })).body).toEqual({
      errors: ["pos.skip_inventory_check cannot be true while pos.enabled is false"],
    });
    expect((await patch(id, "integrations", { pos: { enabled: true, skip_inventory_check: true }, b2b: { enabled: true } })).body).toEqual({
      pos: { enabled: true, skip_inventory_check: true },
      b2b: { enabled: true },
    });
  });
});

describe("translations", () => {
  it("starts from the shop's default locale", async () => {
    await env.app.pool.query("update shops set default_locale = 'fr' where id = $1", [env.shopId]);
    const id = await newOffer(env);
    expect((await read(id, "translations")).default_locale).toBe("fr");
    await env.app.pool.query("update shops set default_locale = 'en' where id = $1", [env.shopId]);
  });

  it("takes valid field paths and locales, merges translations, null removes one", async () => {
    const id = await newOffer(env);
    const set = await patch(id, "translations", {
      locales: ["fr", "de"],
      fields: ["widget.button.text", "countdown.text"],
      translations: { fr: { "widget.button.text": "Précommander" }, de: { "widget.button.text": "Vorbestellen" } },
    });
    expect(set.status).toBe(202);
    const merged = await patch(id, "translations", { translations: { fr: { "countdown.text": "Fin dans" }, de: { "widget.button.text": null } } });
    expect(merged.body).toEqual({
      default_locale: "en",
      locales: ["fr", "de"],
      fields: ["widget.button.text", "countdown.text"],
      translations: { fr: { "widget.button.text": "Précommander", "countdown.text": "Fin dans" } },
    });
  });

  it("refuses translations that would make the storefront configuration larger than the platform's json metafield (422 naming the field and the limit)", async () => {
    const locales = ["fr", "de", "es", "it", "nl", "pt", "sv", "da", "fi", "pl", "cs", "hu", "ro", "tr", "ja", "ko", "zh", "ar", "he", "th"];
    const fields = ["widget.button.text", "widget.badge.text", "widget.disclaimer.text", "shipping.display.shipping_text", "checkout.terms.text", "countdown.text"];
    const texts = (length: number) => Object.fromEntries(fields.map((field) => [field, "x".repeat(length)]));
    const id = await newOffer(env);
    const small = await patch(id, "translations", { locales: locales.slice(0, 4), fields, translations: Object.fromEntries(locales.slice(0, 4).map((l) => [l, texts(1200)])) });
    expect(small.status).toBe(202);
    // 20 locales x 6 fields x 1,200 characters: about 144 KB of text, and one longer text; it answered 202 and then failed at every sync (issue 31).
    const large = await patch(id, "translations", {
      locales,
      translations: { ...Object.fromEntries(locales.map((l) => [l, texts(1200)])), de: { ...texts(1200), "checkout.terms.text": "y".repeat(2000) } },
    });
    expect(large.status).toBe(422);
    const { errors } = large.body as { errors: string[] };
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^translations\.translations\.de\.checkout\.terms\.text makes the offer's storefront configuration \d+ bytes; the store platform keeps at most 131072 bytes in a json metafield$/);
    expect(Number(/configuration (\d+) bytes/.exec(errors[0] ?? "")?.[1])).toBeGreaterThan(131_072);
    // Nothing of it was saved.
    expect((await read(id, "translations")).locales).toEqual(locales.slice(0, 4));
  });

  it("refuses invalid paths, unlisted locales and fields", async () => {
    const id = await newOffer(env, { translations: { locales: ["fr"], fields: ["widget.button.text"] } });
    expect((await patch(id, "translations", { fields: ["widget.button.txt"], locales: ["fr", "Français"] })).body).toEqual({
      errors: ["locales.1 must be a locale", expect.stringMatching(/^fields\.0 must be one of: widget\.button\.text, /)],
    });
    expect((await patch(id, "translations", { translations: { es: { "widget.button.text": "Reservar" } } })).body).toEqual({
      errors: ["translations.es must be one of the locales: fr"],
    });
    expect((await patch(id, "translations", { translations: { fr: { "widget.badge.text": "Bientôt" } } })).body).toEqual({
      errors: ["translations.fr.widget.badge.text must be one of the fields: widget.button.text"],
    });
    expect((await patch(id, "translations", { locales: ["en", "fr"] })).body).toEqual({ errors: ["locales.0 must not be the default_locale (en)"] });
  });

  it("dropping a locale or field drops its translations", async () => {
    const id = await newOffer(env, {
      translations: {
        locales: ["fr", "de"],
        fields: ["widget.button.text", "countdown.text"],
        translations: { fr: { "widget.button.text": "Précommander", "countdown.text": "Fin" }, de: { "countdown.text": "Ende" } },
      },
    });
    expect((await patch(id, "translations", { locales: ["fr"] })).body).toMatchObject({
      translations: { fr: { "widget.button.text": "Précommander", "countdown.text": "Fin" } },
    });
    expect((await patch(id, "translations", { fields: ["widget.button.text"] })).body).toMatchObject({
      translations: { fr: { "widget.button.text": "Précommander" } },
    });
  });
});

describe("advanced", () => {
  it("set_button_text_override replaces the text of one display state", async () => {
    const id = await newOffer(env);
    for (const state of ["before_launch", "after_launch", "out_of_stock"]) {
      const answer = await action(id, "advanced/set_button_text_override", { state, text: `text for ${state}` });
      expect(answer.status).toBe(202);
      expect((answer.body as { button_text_overrides: Json }).button_text_overrides[state]).toBe(`text for ${state}`);
    }
    expect((await read(id, "advanced")).button_text_overrides).toEqual({
      before_launch: "text for before_launch",
      after_launch: "text for after_launch",
      out_of_stock: "text for out_of_stock",
    });
    expect((await action(id, "advanced/set_button_text_override", { state: "sold_out", text: "x" })).body).toEqual({
      errors: ["state must be one of: before_launch, after_launch, out_of_stock"],
    });
    expect((await action(id, "advanced/set_button_text_override", { state: "out_of_stock" })).body).toEqual({ errors: ["text is required"] });
  });

  it("attach_to_platform_selling_plan is refused while split type is orders, then works once it is off", async () => {
    const id = await newOffer(env, { shipping: { fulfillment: { split: { type: "orders" } } } });
    expect((await read(id, "advanced")).use_platform_selling_plan).toBe(false);
    const refused = await action(id, "advanced/attach_to_platform_selling_plan");
    expect(refused.status).toBe(409);
    expect((await read(id, "advanced")).use_platform_selling_plan).toBe(false);

    expect((await patch(id, "shipping", { fulfillment: { split: { enabled: false } } })).status).toBe(202);
    const attached = await action(id, "advanced/attach_to_platform_selling_plan");
    expect(attached.status).toBe(202);
    expect(attached.body).toMatchObject({ use_platform_selling_plan: true });
  });

  it("attach resumes syncing even when already attached", async () => {
    const id = await newOffer(env);
    await env.app.pool.query("update preorder_offers set sync_status = 'failed', sync_last_error = 'boom' where id = $1", [id]);
    const before = await syncState(env.app.pool, id);
    expect((await action(id, "advanced/attach_to_platform_selling_plan")).status).toBe(202);
    const after = await syncState(env.app.pool, id);
    expect(after.sync_status).toBe("pending");
    expect(BigInt(after.revision)).toBe(BigInt(before.revision) + 1n);
  });

  it("PATCH use_platform_selling_plan true is refused while split type is orders; custom_css has a limit", async () => {
    const id = await newOffer(env, { shipping: { fulfillment: { split: { type: "orders" } } } });
    expect((await patch(id, "advanced", { use_platform_selling_plan: true })).body).toEqual({
      errors: ["use_platform_selling_plan cannot be true while shipping.fulfillment.split.type is orders; turn that split off first"],
    });
    expect((await patch(id, "advanced", { custom_css: "x".repeat(20_001) })).body).toEqual({ errors: ["custom_css must be at most 20000 characters"] });
    expect((await patch(id, "advanced", { custom_css: ".preorder { color: red }" })).body).toMatchObject({ custom_css: ".preorder { color: red }" });
  });
});
