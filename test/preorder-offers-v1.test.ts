import { beforeAll, describe, expect, it } from "vitest";
import { type TestApp, api, createShopWithKey, startTestApp } from "./helpers/app.ts";
import { type Json, offerCall, seedCatalog, variantGid } from "./helpers/offers.ts";
import { TestClock } from "./helpers/clock.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv();

beforeAll(async () => {
  await seedCatalog(env.app.pool, env.shopId);
});

interface Answer {
  status: number;
  body: unknown;
  headers: Headers;
}

async function v1(body: unknown, options: { key?: string | undefined; raw?: string; target?: TestApp } = {}): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const token = "key" in options ? options.key : env.key;
  if (token) headers["x-auth-token"] = token;
  const response = await fetch(`${(options.target ?? env.app).origin}/api/v1/external/preorders`, {
    method: "POST",
    headers,
    body: options.raw ?? JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined, headers: response.headers };
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("v1: create a selling plan", () => {
  it("creates with defaults for every field not set, answering 201 with the plan in v1's fields", async () => {
    const answer = await v1({ selling_plan: { name: "Summer" } });
    expect(answer.status).toBe(201);
    const plan = answer.body as Json & { id: string };
    expect(plan).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown,
      name: "Summer",
      internal_name: "Summer",
      enabled: false,
      billing_type: "time_after_checkout",
      billing_time: null,
      billing_interval_days: 30,
      billing_checkout_charge_type: "percentage",
      billing_checkout_charge_percentage: 100,
      billing_title: "Pay in full",
      billing_description: "Pay the whole price now.",
      pricing_type: "no_discount",
      pricing_percentage: null,
      pricing_fixed_amount: null,
      auto_collect_remaining_payment: false,
      show_partial_payment_first: false,
      delivery_type: "asap",
      delivery_time: null,
      delivery_interval_days: null,
      shipping_text: "Ships as soon as it is available.",
      line_item_properties_enabled: false,
      split_orders_enabled: false,
      split_fulfillments_enabled: false,
      hold_fulfillments_enabled: false,
      split_orders_per_variant: false,
      hold_reason_note: "Preorder items are not in stock yet.",
      preorder_button_text: "Preorder",
      preorder_button_text_color: null,
      preorder_button_background_color: null,
      preorder_badge_enabled: false,
      preorder_badge_text: "Preorder",
      preorder_badge_text_color: "#ffffff",
      preorder_badge_background_color: "#000000",
      product_variants_source: "custom",
      collection_id: null,
      markets_enabled: false,
      market_ids: [],
      require_preorder_acknowledgement: false,
      terms_text: "I understand that this item is a preorder and ships later than items in stock.",
      allow_mixed_cart: true,
      mixed_cart_error_message: "Preorder items must be checked out separately from items in stock.",
      order_tags: ["preorder"],
      quantity_limit_text: "Only {{ remaining }} left to preorder",
      min_quantity_per_order: 1,
      max_quantity_per_order: null,
      inventory_reservation: "on_sale",
      inventory_provider: "platform",
      use_platform_selling_plan: true,
      selling_plan_product_variants_count: 0,
      platform_selling_plan_id: null,
      platform_selling_plan_group_id: null,
      shop_id: env.shopId,
      created_at: expect.stringMatching(ISO_UTC) as unknown,
      updated_at: expect.stringMatching(ISO_UTC) as unknown,
      ongoing_job: false,
      platform_variant_ids: [],
      market_id: null,
      deleted_at: null,
    });
  });

  it("maps the v1 fields onto the offer that v2 reads", async () => {
    const answer = await v1({
      selling_plan: {
        name: "Autumn",
        internal_name: "AUT-1",
        enabled: true,
        billing_type: "exact_time",
        billing_time: "2026-10-01T00:00:00Z",
        billing_checkout_charge_type: "percentage",
        billing_checkout_charge_percentage: 25,
        billing_title: "Reserve for 25%",
        delivery_type: "exact_time",
        delivery_time: "2026-11-01T12:00:00+01:00",
        pricing_type: "percentage",
        pricing_percentage: 10,
        preorder_button_text: "Reserve",
        preorder_button_background_color: "#ff0000",
        preorder_badge_enabled: true,
        preorder_badge_text: "Soon",
        product_variants_source: "custom",
        platform_variant_ids: [101, variantGid(201)],
        markets_enabled: true,
        market_ids: ["m-fr"],
        hold_fulfillments_enabled: true,
        require_preorder_acknowledgement: true,
        allow_mixed_cart: false,
        order_tags: ["autumn"],
        max_quantity_per_order: 3,
      },
    });
    expect(answer.status).toBe(201);
    const plan = answer.body as Json & { id: string };
    expect(plan).toMatchObject({
      name: "Autumn",
      enabled: true,
      billing_type: "exact_time",
      billing_time: "2026-10-01T00:00:00.000Z",
      billing_checkout_charge_percentage: 25,
      billing_title: "Reserve for 25%",
      delivery_type: "exact_time",
      delivery_time: "2026-11-01T11:00:00.000Z",
      pricing_type: "percentage",
      pricing_percentage: 10,
      preorder_button_background_color: "#ff0000",
      hold_fulfillments_enabled: true,
      selling_plan_product_variants_count: 2,
      platform_variant_ids: [101, 201],
      market_ids: ["m-fr"],
      market_id: "m-fr",
    });

    const offer = await offerCall(env.app, env.key, "GET", plan.id);
    expect(offer.status).toBe(200);
    expect(offer.body).toMatchObject({
      id: plan.id,
      name: "Autumn",
      internal_name: "AUT-1",
      status: "active",
      variants: { count: 2 },
      products: { source: "custom", custom: { variant_ids_sample: [101, 201] } },
      widget: { button: { text: "Reserve", colors: { enabled: true, background_color: "#ff0000" } }, badge: { enabled: true, text: "Soon" } },
      shipping: { delivery: { type: "on_date", date: "2026-11-01T11:00:00.000Z" }, fulfillment: { hold: true, split: { enabled: false, type: null } } },
      payments: {
        mode: "deposit",
        discount: { type: "percentage", value: 10 },
        remaining_balance: { due: { type: "on_date", date: "2026-10-01T00:00:00.000Z", days: null } },
      },
      limits: { per_order: { min: 1, max: 3 } },
      checkout: { terms: { enabled: true, disable_button_until_acknowledged: true }, mixed_cart: { allowed: false }, order_tags: { tags: ["autumn"] } },
      markets: { enabled: true, applies_to_all_markets: false, market_ids: ["m-fr"] },
      advanced: { use_platform_selling_plan: true },
    });
    const options = (offer.body as { payments: { options: Json[] } }).payments.options;
    expect(options).toContainEqual(expect.objectContaining({ type: "deposit", enabled: true, deposit_percent: 25, title: "Reserve for 25%" }));
    expect(options).toContainEqual(expect.objectContaining({ type: "full", enabled: false }));
    const list = (await api(env.app, "GET", "/preorders/offers?status=active", { key: env.key })).body as { offers: Json[] };
    expect(list.offers.map((o) => o.id)).toContain(plan.id);
  });

  it("split_orders_enabled turns use_platform_selling_plan off", async () => {
    const answer = await v1({ selling_plan: { name: "Split", split_orders_enabled: true, split_orders_per_variant: true, use_platform_selling_plan: true } });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ split_orders_enabled: true, split_orders_per_variant: true, use_platform_selling_plan: false });
    const offer = await offerCall(env.app, env.key, "GET", (answer.body as { id: string }).id);
    expect(offer.body).toMatchObject({
      shipping: { fulfillment: { hold: false, split: { enabled: true, type: "orders", per_variant: true } } },
      advanced: { use_platform_selling_plan: false },
    });
  });
});

describe("v1 rules and errors", () => {
  it("only one of the split and hold flags: turning one on turns the others off, the first in the spec's order staying on (decision 0250)", async () => {
    const both = await v1({ selling_plan: { name: "Both", hold_fulfillments_enabled: true, split_orders_enabled: true } });
    expect(both.status).toBe(201);
    expect(both.body).toMatchObject({ split_orders_enabled: true, split_fulfillments_enabled: false, hold_fulfillments_enabled: false, use_platform_selling_plan: false });
    const three = await v1({ selling_plan: { name: "All", hold_fulfillments_enabled: true, split_fulfillments_enabled: true, split_orders_enabled: true } });
    expect(three.body).toMatchObject({ split_orders_enabled: true, split_fulfillments_enabled: false, hold_fulfillments_enabled: false });
    const fulfillments = await v1({ selling_plan: { name: "Split and hold", hold_fulfillments_enabled: true, split_fulfillments_enabled: true } });
    expect(fulfillments.body).toMatchObject({ split_orders_enabled: false, split_fulfillments_enabled: true, hold_fulfillments_enabled: false });
    // The flag turned off no longer counts: a split into orders with an exact-time delivery is fine, though split fulfillments need asap.
    const dated = await v1({ selling_plan: { name: "Dated", split_orders_enabled: true, split_fulfillments_enabled: true, delivery_type: "exact_time", delivery_time: "2027-03-01T00:00:00Z" } });
    expect(dated.status).toBe(201);
    expect(dated.body).toMatchObject({ split_orders_enabled: true, split_fulfillments_enabled: false });
    // one on, the others explicitly off, is fine
    const one = await v1({ selling_plan: { name: "One", split_fulfillments_enabled: true, split_orders_enabled: false, hold_fulfillments_enabled: false } });
    expect(one.status).toBe(201);
    expect(one.body).toMatchObject({ split_fulfillments_enabled: true, split_orders_enabled: false, hold_fulfillments_enabled: false });
  });

  it("markets_enabled needs market ids, of this shop", async () => {
    const missing = await v1({ selling_plan: { name: "M", markets_enabled: true } });
    expect(missing).toMatchObject({ status: 422, body: { errors: { market_ids: ["is required when markets_enabled is true"] } } });
    const empty = await v1({ selling_plan: { name: "M", markets_enabled: true, market_ids: [] } });
    expect(empty.body).toEqual({ errors: { market_ids: ["is required when markets_enabled is true"] } });
    const unknown = await v1({ selling_plan: { name: "M", markets_enabled: true, market_ids: ["m-fr", "m-zz"] } });
    expect(unknown).toMatchObject({ status: 422, body: { errors: { market_ids: ["must be a market of this shop (unknown id m-zz)"] } } });
  });

  it("deposits are unavailable with split orders", async () => {
    const answer = await v1({ selling_plan: { name: "D", split_orders_enabled: true, billing_checkout_charge_percentage: 30 } });
    expect(answer.status).toBe(422);
    expect(Object.keys((answer.body as { errors: Json }).errors)).toEqual(["billing_checkout_charge_percentage"]);
  });

  it("validates types and unknown fields, per field", async () => {
    const answer = await v1({ selling_plan: { enabled: "yes", delivery_type: "tomorrow", preorder_badge_text_color: "pink", colour: 1 } });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({
      errors: {
        name: ["is required"],
        enabled: ["must be a boolean"],
        delivery_type: ["must be one of: asap, exact_time"],
        preorder_badge_text_color: ["must be a hex color"],
        colour: ["is not allowed"],
      },
    });
    expect((await v1({})).body).toEqual({ errors: { selling_plan: ["is required"] } });
    expect((await v1({ plan: {} })).body).toEqual({ errors: { selling_plan: ["is required"], plan: ["is not allowed"] } });
    const variants = await v1({ selling_plan: { name: "V", platform_variant_ids: [101, 999] } });
    expect(variants.body).toEqual({ errors: { platform_variant_ids: ["must be a variant of this shop (unknown id gid://shopify/ProductVariant/999)"] } });
    const rule = await v1({ selling_plan: { name: "V", min_quantity_per_order: 5, max_quantity_per_order: 2 } });
    expect(rule.body).toEqual({ errors: { max_quantity_per_order: ["must be at least per_order.min (5)"] } });
  });

  it("writes nothing on an error", async () => {
    const before = ((await api(env.app, "GET", "/preorders/offers", { key: env.key })).body as { total: number }).total;
    await v1({ selling_plan: { name: "Nope", delivery_type: "exact_time" } });
    await v1({ selling_plan: { name: "Nope", platform_variant_ids: [999] } });
    expect(((await api(env.app, "GET", "/preorders/offers", { key: env.key })).body as { total: number }).total).toBe(before);
  });

  it("needs the same key: 401 in v1's shape; bad JSON, or none, is 400", async () => {
    const none = await v1({ selling_plan: { name: "x" } }, { key: undefined });
    expect(none).toMatchObject({ status: 401, body: { errors: { base: ["X-Auth-Token is missing or invalid"] } } });
    const wrong = await v1({ selling_plan: { name: "x" } }, { key: "pbk_wrong" });
    expect(wrong.status).toBe(401);
    const bad = await v1(undefined, { raw: "{" });
    expect(bad).toMatchObject({ status: 400, body: { errors: { base: ["Request body is not valid JSON"] } } });
    // No body at all is refused the same way (decision 0195), not as a missing selling_plan.
    const empty = await v1(undefined, { raw: "" });
    expect(empty).toMatchObject({ status: 400, body: { errors: { base: ["Request body is not valid JSON"] } } });
  });

  it("is not listed in v2's /help", async () => {
    const help = (await api(env.app, "GET", "/help", { key: env.key })).body as { actions: { name: string }[] };
    expect(help.actions.map((a) => a.name)).not.toContain("v1.preorders.create");
    expect((await api(env.app, "POST", "/preorders", { key: env.key, body: { selling_plan: { name: "x" } } })).status).toBe(404);
  });
});

describe("v1: the same rate budget as v2", () => {
  it("charges a v1 write 2 points from the key's budget", async () => {
    // The four calls share one 60 s window (the default): the app's clock stands at its start.
    const clock = new TestClock();
    clock.nextWindow(60);
    const limited = await startTestApp(env.db.url, { RATE_LIMIT_POINTS: "5" }, { now: clock.now });
    try {
      const { apiKey } = await createShopWithKey(limited.pool, "Limited");
      expect((await api(limited, "POST", "/preorders/offers", { key: apiKey, body: { name: "v2" } })).status).toBe(202);
      const created = await v1({ selling_plan: { name: "v1" } }, { key: apiKey, target: limited });
      expect(created.status).toBe(201);
      expect(created.headers.get("x-ratelimit-remaining")).toBe("1");
      const refused = await v1({ selling_plan: { name: "v1 again" } }, { key: apiKey, target: limited });
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(refused.body).toEqual({ errors: { base: ["Rate limit exceeded"] } });
      // the budget is the key's, whichever interface spends it
      expect((await api(limited, "GET", "/preorders/offers", { key: apiKey })).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});
