import { beforeAll, describe, expect, it } from "vitest";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { type Json, createOffer, offerCall, seedCatalog, syncState } from "./helpers/offers.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv({ shop: "Shop A" });
let otherKey: string;

beforeAll(async () => {
  ({ apiKey: otherKey } = await createShopWithKey(env.app.pool, "Shop B"));
  await seedCatalog(env.app.pool, env.shopId);
});

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The defaults of a new offer, in the spec's Resources shape (and the groups' own extra fields). */
function defaultOffer(id: string, name: string): Json {
  return {
    id,
    name,
    internal_name: name,
    status: "draft",
    created_at: expect.stringMatching(ISO_UTC),
    updated_at: expect.stringMatching(ISO_UTC),
    variants: { count: 0, url: `/api/v2/external/preorders/offers/${id}/variants` },
    schedule: { enable_at: null, disable_at: null },
    products: { source: "custom", custom: { variant_ids_sample: [] }, collection: { id: null }, exclusion_tag: null, excluded_variant_ids: [] },
    widget: {
      button: { text: "Preorder", colors: { enabled: false, text_color: "#ffffff", background_color: "#000000" } },
      disclaimer: {
        enabled: false,
        text: "This item is on preorder. It ships on the delivery date shown.",
        text_color: "#333333",
        background_color: "#f5f5f5",
        border_radius: "4px",
      },
      badge: { enabled: false, text: "Preorder", text_color: "#ffffff", background_color: "#000000" },
    },
    shipping: {
      delivery: { applies_to_all_products: true, type: "asap", days: null, date: null },
      display: { show_details: true, shipping_text: "Ships as soon as it is available.", shipping_line_item_property_enabled: false },
      fulfillment: {
        hold: false,
        hold_reason: "Preorder items are not in stock yet.",
        split: {
          enabled: false,
          type: null,
          hold_fulfillments: false,
          sequential_number: false,
          per_variant: false,
          order_tag: "preorder-split",
          order_suffix: "-P",
          transaction_gateway: null,
        },
      },
    },
    payments: {
      mode: "full",
      discount: { type: "no_discount", value: null },
      options: [
        { type: "full", enabled: true, deposit_percent: null, title: "Pay in full", description: "Pay the whole price now." },
        {
          type: "deposit",
          enabled: false,
          deposit_percent: 50,
          title: "Pay a deposit",
          description: "Pay part of the price now and the rest before the item ships.",
        },
      ],
      remaining_balance: { auto_collect: false, auto_collect_on_fulfillment: false, due: { type: "days_after_checkout", days: 30, date: null } },
      show_partial_first: false,
      billing_widget_text: null,
    },
    limits: {
      per_order: { min: 1, max: null },
      per_customer: { max: null },
      total: { max: null, current_count: 0 },
      display: { show_remaining: false, quantity_limit_text: "Only {{ remaining }} left to preorder" },
    },
    checkout: {
      terms: {
        enabled: false,
        text: "I understand that this item is a preorder and ships later than items in stock.",
        disable_button_until_acknowledged: false,
      },
      mixed_cart: { allowed: true, error_message: "Preorder items must be checked out separately from items in stock." },
      order_tags: { tags: ["preorder"] },
    },
    inventory: { provider: "platform", reservation: { timing: "on_sale" }, continue_selling: { enabled: true, auto_apply_to_new_variants: false } },
    markets: { enabled: false, applies_to_all_markets: true, market_ids: [] },
    countdown: {
      enabled: false,
      mode: "to_schedule_end",
      format: "dd:hh:mm:ss",
      text: "Preorder ends in",
      custom_end_date: null,
      style: { type: "inline", text_color: "#000000", background_color: "#ffffff", border_radius: "4px" },
    },
    integrations: { pos: { enabled: false, skip_inventory_check: false }, b2b: { enabled: false } },
    translations: { default_locale: "en", locales: [], fields: [], translations: {} },
    advanced: {
      use_platform_selling_plan: true,
      custom_css: "",
      button_text_overrides: { before_launch: null, after_launch: null, out_of_stock: null },
    },
    sync: { status: "pending", last_error: null, last_event: null, platform_selling_plan_group_id: null },
  };
}

/** Every field of the spec's Resources table, as a dotted path, with a check of its type. */
const SPEC_FIELDS: [string, (v: unknown) => boolean][] = [
  ["id", (v) => typeof v === "string"],
  ["name", (v) => typeof v === "string"],
  ["internal_name", (v) => typeof v === "string"],
  ["status", (v) => typeof v === "string"],
  ["created_at", (v) => typeof v === "string"],
  ["updated_at", (v) => typeof v === "string"],
  ["variants.count", Number.isInteger],
  ["variants.url", (v) => typeof v === "string"],
  ["products.source", (v) => typeof v === "string"],
  ["products.custom.variant_ids_sample", (v) => Array.isArray(v) && v.every(Number.isInteger)],
  ["widget.button.text", (v) => typeof v === "string"],
  ["widget.button.colors.enabled", (v) => typeof v === "boolean"],
  ["widget.button.colors.text_color", (v) => typeof v === "string" && /^#/.test(v)],
  ["widget.button.colors.background_color", (v) => typeof v === "string" && /^#/.test(v)],
  ["widget.disclaimer.enabled", (v) => typeof v === "boolean"],
  ["widget.disclaimer.text", (v) => typeof v === "string"],
  ["widget.disclaimer.text_color", (v) => typeof v === "string"],
  ["widget.disclaimer.background_color", (v) => typeof v === "string"],
  ["widget.disclaimer.border_radius", (v) => typeof v === "string" && /\d(px|em|rem|%)$/.test(v)],
  ["widget.badge.enabled", (v) => typeof v === "boolean"],
  ["widget.badge.text", (v) => typeof v === "string"],
  ["widget.badge.text_color", (v) => typeof v === "string"],
  ["widget.badge.background_color", (v) => typeof v === "string"],
  ["shipping.delivery.applies_to_all_products", (v) => typeof v === "boolean"],
  ["shipping.delivery.type", (v) => v === "asap" || v === "on_date"],
  ["shipping.delivery.days", (v) => v === null || Number.isInteger(v)],
  ["shipping.delivery.date", (v) => v === null || typeof v === "string"],
  ["shipping.display.show_details", (v) => typeof v === "boolean"],
  ["shipping.display.shipping_text", (v) => typeof v === "string"],
  ["shipping.display.shipping_line_item_property_enabled", (v) => typeof v === "boolean"],
  ["payments.mode", (v) => typeof v === "string"],
  ["payments.discount.type", (v) => v === null || typeof v === "string"],
  ["payments.discount.value", (v) => v === null || typeof v === "number"],
  ["payments.options", (v) => Array.isArray(v) && v.every((o: Json) => typeof o.type === "string" && (o.deposit_percent === null || typeof o.deposit_percent === "number"))],
  ["limits.per_order.min", Number.isInteger],
  ["limits.per_order.max", (v) => v === null || Number.isInteger(v)],
  ["limits.per_customer.max", (v) => v === null || Number.isInteger(v)],
  ["limits.total.max", (v) => v === null || Number.isInteger(v)],
  ["limits.total.current_count", (v) => v === null || Number.isInteger(v)],
  ["limits.display.show_remaining", (v) => typeof v === "boolean"],
  ["limits.display.quantity_limit_text", (v) => typeof v === "string"],
  ["checkout.terms.enabled", (v) => typeof v === "boolean"],
  ["checkout.terms.text", (v) => typeof v === "string"],
  ["checkout.terms.disable_button_until_acknowledged", (v) => typeof v === "boolean"],
  ["checkout.mixed_cart.allowed", (v) => typeof v === "boolean"],
  ["checkout.mixed_cart.error_message", (v) => typeof v === "string"],
  ["checkout.order_tags.tags", (v) => Array.isArray(v) && v.every((t) => typeof t === "string")],
  ["inventory.provider", (v) => typeof v === "string"],
  ["inventory.reservation.timing", (v) => v === "on_sale" || v === "on_fulfillment"],
  ["inventory.continue_selling.enabled", (v) => typeof v === "boolean"],
  ["inventory.continue_selling.auto_apply_to_new_variants", (v) => typeof v === "boolean"],
  ["markets.enabled", (v) => typeof v === "boolean"],
  ["markets.applies_to_all_markets", (v) => typeof v === "boolean"],
  ["markets.market_ids", (v) => Array.isArray(v)],
  ["countdown.enabled", (v) => typeof v === "boolean"],
  ["countdown.mode", (v) => v === "to_schedule_end" || v === "to_custom_date"],
  ["countdown.format", (v) => typeof v === "string"],
  ["countdown.text", (v) => typeof v === "string"],
  ["integrations.pos.enabled", (v) => typeof v === "boolean"],
  ["integrations.pos.skip_inventory_check", (v) => typeof v === "boolean"],
  ["integrations.b2b.enabled", (v) => typeof v === "boolean"],
  ["translations.default_locale", (v) => typeof v === "string"],
  ["translations.locales", (v) => Array.isArray(v)],
  ["translations.fields", (v) => Array.isArray(v)],
  ["translations.translations", (v) => typeof v === "object" && v !== null && !Array.isArray(v)],
  ["advanced.use_platform_selling_plan", (v) => typeof v === "boolean"],
  ["advanced.custom_css", (v) => typeof v === "string"],
];

function at(value: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((current, key) => (current as Json | undefined)?.[key], value);
}

describe("offers: create and get", () => {
  it("creates a draft offer with every default and answers it in full (202)", async () => {
    const answer = await invoke(env.app, "POST", "/preorders/offers", { key: env.key, body: { name: "Spring drop" } });
    expect(answer.status).toBe(202);
    const body = answer.body as Json & { id: string };
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    // A custom source queues no resolution: the create answers its handle as null.
    expect(body).toEqual({ ...defaultOffer(body.id, "Spring drop"), resolution_job: null });
    const { resolution_job: _resolution, ...offer } = body;
    const read = await offerCall(env.app, env.key, "GET", body.id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(offer);
  });

  it("one create is one change however many of its steps touch the offer: the revision moves once", async () => {
    // Settings beyond the defaults are saved by one step and the row by another, in one transaction.
    const answer = await invoke(env.app, "POST", "/preorders/offers", { key: env.key, body: { name: "Terms drop", checkout: { terms: { enabled: true } } } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const { rows } = await env.app.pool.query<{ revision: string }>("select revision::text from preorder_offers where id = $1", [(answer.body as { id: string }).id]);
    expect(rows).toEqual([{ revision: "2" }]); // 1 at the insert, one change
  });

  it("answers every field of the spec's Resources table with its type and nesting", async () => {
    const offer = await createOffer(env.app, env.key, { products: { variant_ids: [101, 201] } });
    const read = (await offerCall(env.app, env.key, "GET", offer.id)).body;
    for (const [path, check] of SPEC_FIELDS) expect(check(at(read, path)), `${path}: ${JSON.stringify(at(read, path))}`).toBe(true);
    expect(at(read, "products.custom.variant_ids_sample")).toEqual([101, 201]);
    expect(at(read, "variants.count")).toBe(2);
    expect(Object.keys(read as Json)).toEqual([
      "id", "name", "internal_name", "status", "created_at", "updated_at", "variants", "schedule", "products", "widget", "shipping",
      "payments", "limits", "checkout", "inventory", "markets", "countdown", "integrations", "translations", "advanced", "sync",
    ]);
  });

  it("takes any group's deep-partial settings at create, checked by the same rules", async () => {
    const offer = await createOffer(env.app, env.key, {
      internal_name: "SPR-26",
      widget: { button: { text: "Reserve now" } },
      shipping: { delivery: { type: "on_date", date: "2026-12-01T09:00:00+01:00" } },
      checkout: { order_tags: { tags: ["preorder", "spring"] } },
    });
    expect(offer).toMatchObject({
      name: "Spring drop",
      internal_name: "SPR-26",
      widget: { button: { text: "Reserve now", colors: { enabled: false } } },
      shipping: { delivery: { type: "on_date", date: "2026-12-01T08:00:00.000Z", days: null } },
      checkout: { order_tags: { tags: ["preorder", "spring"] } },
    });
  });

  it("validates the create body and writes nothing on a 422", async () => {
    const before = (await invoke(env.app, "GET", "/preorders/offers", { key: env.key })).body as { total: number };
    const missing = await invoke(env.app, "POST", "/preorders/offers", { key: env.key, body: { internal_name: 3, colour: "red", widget: { button: { colour: "red" } } } });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      errors: ["name is required", "internal_name must be a string", "widget.button.colour is not allowed", "colour is not allowed"],
    });
    const rule = await invoke(env.app, "POST", "/preorders/offers", {
      key: env.key,
      body: { name: "X", shipping: { fulfillment: { hold: true, split: { type: "orders" } } }, limits: { per_order: { min: 5, max: 2 } } },
    });
    expect(rule.status).toBe(422);
    expect(rule.body).toEqual({
      errors: ["shipping.fulfillment.hold cannot be true while fulfillment.split is on", "limits.per_order.max must be at least per_order.min (5)"],
    });
    const unknownVariant = await invoke(env.app, "POST", "/preorders/offers", { key: env.key, body: { name: "X", products: { variant_ids: [101, 999] } } });
    expect(unknownVariant.status).toBe(422);
    expect(unknownVariant.body).toEqual({ errors: ["products.variant_ids.1 must be a variant of this shop (unknown id gid://shopify/ProductVariant/999)"] });
    const after = (await invoke(env.app, "GET", "/preorders/offers", { key: env.key })).body as { total: number };
    expect(after.total).toBe(before.total);
  });

  it("answers 404 in the stable form for an unknown or malformed id", async () => {
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect(await offerCall(env.app, env.key, "GET", unknown)).toMatchObject({ status: 404, body: { errors: [`Preorder offer not found: ${unknown}`] } });
    expect(await offerCall(env.app, env.key, "GET", "nope")).toMatchObject({ status: 404, body: { errors: ["Preorder offer not found: nope"] } });
    expect(await offerCall(env.app, env.key, "GET", "nope", "/widget")).toMatchObject({ status: 404 });
  });
});

describe("offers: list", () => {
  let listKey: string;
  const ids: string[] = [];

  beforeAll(async () => {
    ({ apiKey: listKey } = await createShopWithKey(env.app.pool, "Lister"));
    for (const name of ["first", "second", "third"]) ids.push((await createOffer(env.app, listKey, { name })).id);
    await offerCall(env.app, listKey, "POST", ids[1] ?? "", "/enable");
  });

  it("pages newest first, with the total", async () => {
    const first = await invoke(env.app, "GET", "/preorders/offers?per_page=2", { key: listKey });
    expect(first.status).toBe(200);
    const page1 = first.body as { offers: Json[]; page: number; per_page: number; total: number };
    expect(page1).toMatchObject({ page: 1, per_page: 2, total: 3 });
    expect(page1.offers.map((o) => o.name)).toEqual(["third", "second"]);
    const page2 = (await invoke(env.app, "GET", "/preorders/offers?per_page=2&page=2", { key: listKey })).body as { offers: Json[]; total: number };
    expect(page2.offers.map((o) => o.name)).toEqual(["first"]);
    expect(page2.total).toBe(3);
    const beyond = (await invoke(env.app, "GET", "/preorders/offers?per_page=2&page=5", { key: listKey })).body as { offers: Json[]; total: number };
    expect(beyond).toMatchObject({ offers: [], total: 3 });
  });

  it("lists each offer in full", async () => {
    const list = (await invoke(env.app, "GET", "/preorders/offers", { key: listKey })).body as { offers: Json[]; per_page: number };
    expect(list.per_page).toBe(50);
    const get = await offerCall(env.app, listKey, "GET", ids[0] ?? "");
    expect(list.offers.find((o) => o.id === ids[0])).toEqual(get.body);
  });

  it("filters by status", async () => {
    const active = (await invoke(env.app, "GET", "/preorders/offers?status=active", { key: listKey })).body as { offers: Json[]; total: number };
    expect(active.offers.map((o) => o.name)).toEqual(["second"]);
    expect(active.total).toBe(1);
    const drafts = (await invoke(env.app, "GET", "/preorders/offers?status=draft", { key: listKey })).body as { offers: Json[] };
    expect(drafts.offers.map((o) => o.name)).toEqual(["third", "first"]);
  });

  it("validates paging and the status filter", async () => {
    const answer = await invoke(env.app, "GET", "/preorders/offers?per_page=251&page=0&status=live", { key: listKey });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({
      errors: ["page must be at least 1", "per_page must be at most 250", "status must be one of: draft, active, disabled"],
    });
    const text = await invoke(env.app, "GET", "/preorders/offers?per_page=ten&sort=name", { key: listKey });
    expect(text.body).toEqual({ errors: ["per_page must be an integer", "sort is not allowed"] });
    expect((await invoke(env.app, "GET", "/preorders/offers?per_page=250", { key: listKey })).status).toBe(200);
  });
});

describe("offers: rename, lifecycle and the sync mark", () => {
  it("renames with PATCH /preorders/offers/{id}", async () => {
    const offer = await createOffer(env.app, env.key);
    const answer = await offerCall(env.app, env.key, "PATCH", offer.id, "", { internal_name: "INT-1" });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ name: "Spring drop", internal_name: "INT-1" });
    const bad = await offerCall(env.app, env.key, "PATCH", offer.id, "", { status: "active", name: "" });
    expect(bad.body).toEqual({ errors: ["name must not be empty", "status is not allowed"] });
  });

  it("enable and disable are idempotent: the second call answers 202 with the unchanged offer", async () => {
    const offer = await createOffer(env.app, env.key);
    const enabled = await offerCall(env.app, env.key, "POST", offer.id, "/enable");
    expect(enabled.status).toBe(202);
    expect(enabled.body).toMatchObject({ id: offer.id, status: "active" });
    const revision = (await syncState(env.app.pool, offer.id)).revision;
    const again = await offerCall(env.app, env.key, "POST", offer.id, "/enable");
    expect(again.status).toBe(202);
    expect(again.body).toEqual(enabled.body);
    expect((await syncState(env.app.pool, offer.id)).revision).toBe(revision);

    const disabled = await offerCall(env.app, env.key, "POST", offer.id, "/disable");
    expect(disabled).toMatchObject({ status: 202, body: { status: "disabled" } });
    const disabledAgain = await offerCall(env.app, env.key, "POST", offer.id, "/disable");
    expect(disabledAgain.body).toEqual(disabled.body);
    expect(await offerCall(env.app, env.key, "POST", offer.id, "/enable", { force: true })).toMatchObject({ status: 422, body: { errors: ["force is not allowed"] } });
  });

  it("marks every committed change pending for sync, and a no-op change not at all", async () => {
    const offer = await createOffer(env.app, env.key);
    await env.app.pool.query("update preorder_offers set sync_status = 'synced' where id = $1", [offer.id]);
    const before = await syncState(env.app.pool, offer.id);
    const same = await offerCall(env.app, env.key, "PATCH", offer.id, "/widget", { button: { text: "Preorder" } });
    expect(same.status).toBe(202);
    expect(await syncState(env.app.pool, offer.id)).toEqual(before);

    await offerCall(env.app, env.key, "PATCH", offer.id, "/widget", { button: { text: "Reserve" } });
    const after = await syncState(env.app.pool, offer.id);
    expect(after.sync_status).toBe("pending");
    expect(BigInt(after.revision)).toBe(BigInt(before.revision) + 1n);
    expect(after.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
    expect((await offerCall(env.app, env.key, "GET", offer.id)).body).toMatchObject({ sync: { status: "pending" } });

    for (const [method, suffix, body] of [
      ["POST", "/enable", undefined],
      ["POST", "/products/add_variants", { variant_ids: [101] }],
      ["POST", "/shipping/set_shipping_text", { text: "Soon" }],
      ["PATCH", "", { name: "Renamed" }],
      ["DELETE", "", undefined],
    ] as const) {
      await env.app.pool.query("update preorder_offers set sync_status = 'synced' where id = $1", [offer.id]);
      const answer = await offerCall(env.app, env.key, method, offer.id, suffix, body);
      expect(answer.status, `${method} ${suffix}`).toBe(202);
      expect((await syncState(env.app.pool, offer.id)).sync_status, `${method} ${suffix}`).toBe("pending");
    }
  });
});

describe("offers: soft delete", () => {
  it("deletes, then answers 404 everywhere; the row stays", async () => {
    const offer = await createOffer(env.app, env.key);
    const deleted = await offerCall(env.app, env.key, "DELETE", offer.id);
    expect(deleted.status).toBe(202);
    expect(deleted.body).toEqual({ id: offer.id, deleted_at: expect.stringMatching(ISO_UTC) as unknown });
    const notFound = { status: 404, body: { errors: [`Preorder offer not found: ${offer.id}`] } };
    expect(await offerCall(env.app, env.key, "GET", offer.id)).toMatchObject(notFound);
    expect(await offerCall(env.app, env.key, "DELETE", offer.id)).toMatchObject(notFound);
    expect(await offerCall(env.app, env.key, "POST", offer.id, "/enable")).toMatchObject(notFound);
    expect(await offerCall(env.app, env.key, "GET", offer.id, "/shipping")).toMatchObject(notFound);
    expect(await offerCall(env.app, env.key, "PATCH", offer.id, "/payments", { show_partial_first: true })).toMatchObject(notFound);
    expect(await offerCall(env.app, env.key, "POST", offer.id, "/widget/set_button_text", { text: "x" })).toMatchObject(notFound);
    expect(await offerCall(env.app, env.key, "GET", offer.id, "/products")).toMatchObject(notFound);
    const list = (await invoke(env.app, "GET", "/preorders/offers?per_page=250", { key: env.key })).body as { offers: Json[] };
    expect(list.offers.map((o) => o.id)).not.toContain(offer.id);
    const { rows } = await env.app.pool.query<{ deleted_at: Date | null }>("select deleted_at from preorder_offers where id = $1", [offer.id]);
    expect(rows[0]?.deleted_at).toBeInstanceOf(Date);
  });
});

describe("offers: tenant isolation", () => {
  it("answers 404 for another shop's offer on every kind of action, and changes nothing", async () => {
    const offer = await createOffer(env.app, env.key, { name: "Mine" });
    const notFound = { status: 404, body: { errors: [`Preorder offer not found: ${offer.id}`] } };
    for (const [method, suffix, body] of [
      ["GET", "", undefined],
      ["GET", "/widget", undefined],
      ["PATCH", "", { name: "Theirs" }],
      ["PATCH", "/shipping", { display: { shipping_text: "x" } }],
      ["POST", "/enable", undefined],
      ["POST", "/widget/set_button_text", { text: "x" }],
      ["POST", "/products/set_source_to_all", { confirm: true }],
      ["DELETE", "", undefined],
    ] as const) {
      expect(await offerCall(env.app, otherKey, method, offer.id, suffix, body), `${method} ${suffix}`).toMatchObject(notFound);
    }
    const list = (await invoke(env.app, "GET", "/preorders/offers", { key: otherKey })).body as { offers: Json[]; total: number };
    expect(list).toEqual({ offers: [], page: 1, per_page: 50, total: 0, next_cursor: null, meta: { total_count: 0, page: 1, per_page: 50, total_pages: 0 } });
    const mine = await offerCall(env.app, env.key, "GET", offer.id);
    expect(mine.body).toMatchObject({ name: "Mine", status: "draft", shipping: { display: { shipping_text: "Ships as soon as it is available." } } });
  });

  it("checks variants against the key's shop only", async () => {
    const theirs = await createOffer(env.app, otherKey, { name: "Theirs" });
    const answer = await offerCall(env.app, otherKey, "POST", theirs.id, "/products/add_variants", { variant_ids: [101] });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ errors: ["variant_ids.0 must be a variant of this shop (unknown id gid://shopify/ProductVariant/101)"] });
  });
});

/** Every offers action, by method and path. */
const OFFER_ACTIONS = [
  "POST /preorders/offers",
  "GET /preorders/offers",
  "GET /preorders/offers/{id}",
  "PATCH /preorders/offers/{id}",
  "DELETE /preorders/offers/{id}",
  "POST /preorders/offers/{id}/enable",
  "POST /preorders/offers/{id}/disable",
  "GET /preorders/offers/{id}/variants",
  "GET /preorders/offers/{id}/schedule",
  "POST /preorders/offers/{id}/schedule",
  "POST /preorders/offers/{id}/unschedule",
  "POST /preorders/offers/{id}/restore",
  ...["widget", "shipping", "payments", "limits", "checkout", "inventory", "products", "markets", "countdown", "integrations", "translations", "advanced"].flatMap(
    (group) => [`GET /preorders/offers/{id}/${group}`, `PATCH /preorders/offers/{id}/${group}`],
  ),
  ...[
    "widget/set_button_text",
    "widget/set_button_colors",
    "widget/disable_button_colors",
    "widget/set_badge_text",
    "widget/set_badge_colors",
    "widget/set_disclaimer_text",
    "widget/set_disclaimer_colors",
    "shipping/set_delivery_date",
    "shipping/set_delivery_asap",
    "shipping/set_delivery_days",
    "shipping/set_shipping_text",
    "shipping/set_split_order_tag",
    "shipping/set_split_order_suffix",
    "shipping/set_split_transaction_gateway",
    "payments/set_billing_widget_text",
    "payments/set_option_copy",
    "payments/enable_option",
    "payments/disable_option",
    "checkout/set_mixed_cart_error_message",
    "checkout/set_terms_text",
    "checkout/set_order_tags",
    "inventory/set_reservation_timing",
    "products/set_source_to_all",
    "products/set_source_to_custom",
    "products/set_source_to_collection",
    "products/set_collection",
    "products/add_variants",
    "products/remove_variants",
    "countdown/set_style",
    "countdown/set_custom_end_date",
    "advanced/set_button_text_override",
    "advanced/attach_to_platform_selling_plan",
    "variants/{variant_id}/set_shipping_text",
    "variants/{variant_id}/set_max_count",
    "variants/{variant_id}/clear_overrides",
  ].map((action) => `POST /preorders/offers/{id}/${action}`),
];

interface Entry {
  name: string;
  method: string;
  path: string;
  description: string;
  path_params: string[];
  request_schema: Json & { properties?: Record<string, Json>; required?: string[] };
  cost: number;
}

describe("offers: /help", () => {
  it("lists every offers action with a description and the request schema", async () => {
    const answer = await invoke(env.app, "GET", "/help?prefix=/preorders/offers", { key: env.key });
    const actions = (answer.body as { actions: Entry[] }).actions;
    expect(actions.map((a) => `${a.method} ${a.path}`).sort()).toEqual([...OFFER_ACTIONS].sort());
    for (const action of actions) {
      expect(action.name).toMatch(/^preorders\.offers(\.[a-z_]+)+$/);
      expect(action.description.length, action.name).toBeGreaterThan(40);
      expect(action.request_schema).toMatchObject({ type: "object", additionalProperties: false });
      expect(action.cost).toBe(action.method === "GET" ? 1 : 2);
      if (action.path.includes("{id}")) expect(action.path_params).toEqual(action.path.includes("{variant_id}") ? ["id", "variant_id"] : ["id"]);
    }
    expect(await invoke(env.app, "GET", "/preorders/offers/help", { key: env.key })).toMatchObject({ status: 200, body: answer.body });
  });

  it("answers help at any level of a URL with a real id: the actions of that resource, as the template lists them", async () => {
    const offer = await createOffer(env.app, env.key);
    const pathsAt = async (path: string) => {
      const answer = await invoke(env.app, "GET", path, { key: env.key });
      expect(answer.status, path).toBe(200);
      return (answer.body as { actions: Entry[] }).actions.map((a) => `${a.method} ${a.path}`).sort();
    };
    // It answered 0 actions with the id written out (issue 31).
    const widget = await pathsAt(`/preorders/offers/${offer.id}/widget/help`);
    expect(widget).toEqual(OFFER_ACTIONS.filter((a) => / \/preorders\/offers\/\{id\}\/widget(\/|$)/.test(a)).sort());
    expect(widget.length).toBeGreaterThan(2);
    expect(await pathsAt(`/preorders/offers/${offer.id}/help`)).toEqual(OFFER_ACTIONS.filter((a) => a.includes("/preorders/offers/{id}")).sort());
    expect(await pathsAt(`/preorders/offers/${offer.id}/variants/12345/help`)).toEqual(OFFER_ACTIONS.filter((a) => a.includes("/variants/{variant_id}")).sort());
    // A scope written as the template still answers the same; a literal segment keeps only its own actions.
    expect(await pathsAt("/preorders/offers/{id}/widget/help")).toEqual(widget);
    expect(await pathsAt("/preorders/offers/help")).toEqual([...OFFER_ACTIONS].sort());
    expect(await pathsAt(`/preorders/offers/${offer.id}/nothing_here/help`)).toEqual([]);
  });

  it("gives each named action's body schema: required fields, enums and formats", async () => {
    const actions = ((await invoke(env.app, "GET", "/help?prefix=/preorders/offers", { key: env.key })).body as { actions: Entry[] }).actions;
    const schema = (path: string, method = "POST") => actions.find((a) => a.path === `/preorders/offers/{id}/${path}` && a.method === method)?.request_schema;
    expect(schema("widget/set_button_text")).toMatchObject({ required: ["text"], properties: { text: { type: "string" } } });
    expect(schema("widget/set_button_colors")?.properties).toMatchObject({ text_color: { type: "string", format: "hex-color" } });
    expect(schema("advanced/set_button_text_override")).toMatchObject({
      required: ["state", "text"],
      properties: { state: { enum: ["before_launch", "after_launch", "out_of_stock"] } },
    });
    expect(schema("products/set_source_to_all")).toMatchObject({ required: ["confirm"], properties: { confirm: { type: "boolean" } } });
    expect(schema("inventory/set_reservation_timing")).toMatchObject({ properties: { timing: { enum: ["on_sale", "on_fulfillment"] } } });
    expect(schema("countdown/set_custom_end_date")).toMatchObject({ required: ["date"], properties: { date: { type: "string", format: "date-time" } } });
    const shipping = schema("shipping", "PATCH");
    expect(Object.keys(shipping?.properties ?? {})).toEqual(["delivery", "display", "fulfillment"]);
    expect(shipping?.required).toBeUndefined();
    expect(Object.keys(schema("payments", "PATCH")?.properties ?? {})).toEqual(["discount", "remaining_balance", "show_partial_first", "billing_widget_text"]);
  });
});
