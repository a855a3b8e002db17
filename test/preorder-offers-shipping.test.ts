import { describe, expect, it } from "vitest";
import { type Json, newOffer, offerCall } from "./helpers/offers.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv();

const patch = (id: string, body: unknown) => offerCall(env.app, env.key, "PATCH", id, "/shipping", body);
const action = (id: string, name: string, body: unknown = {}) => offerCall(env.app, env.key, "POST", id, `/shipping/${name}`, body);
const read = async (id: string) => (await offerCall(env.app, env.key, "GET", id, "/shipping")).body as { delivery: Json; display: Json; fulfillment: { hold: boolean; split: Json } };

describe("shipping: GET and deep-partial PATCH", () => {
  it("reads the group and merges a partial change, keeping every other field", async () => {
    const id = await newOffer(env);
    const before = await read(id);
    const answer = await patch(id, { display: { shipping_text: "Ships in May" }, fulfillment: { split: { per_variant: true } } });
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({
      ...before,
      display: { ...before.display, shipping_text: "Ships in May" },
      fulfillment: { ...before.fulfillment, split: { ...before.fulfillment.split, per_variant: true } },
    });
    expect(await read(id)).toEqual(answer.body);
  });

  it("refuses unknown fields at any depth and wrong types, one message per field", async () => {
    const id = await newOffer(env);
    const answer = await patch(id, {
      delivery: { type: "tomorrow", days: -1, date: "next week" },
      display: { show_details: "yes" },
      fulfillment: { split: { type: "halves", colour: "red" }, holds: true },
      extra: 1,
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({
      errors: [
        "delivery.type must be one of: asap, on_date",
        "delivery.days must be at least 0",
        "delivery.date must be an ISO 8601 timestamp",
        "display.show_details must be a boolean",
        "fulfillment.split.type must be one of: fulfillments, orders",
        "fulfillment.split.colour is not allowed",
        "fulfillment.holds is not allowed",
        "extra is not allowed",
      ],
    });
  });

  it("needs a body", async () => {
    const id = await newOffer(env);
    const answer = await offerCall(env.app, env.key, "PATCH", id, "/shipping");
    expect(answer).toMatchObject({ status: 400, body: { errors: ["Request body is not valid JSON"] } });
  });
});

describe("shipping rules", () => {
  it("rule 1: fulfillment.hold and fulfillment.split cannot both be on", async () => {
    const held = await newOffer(env);
    expect((await patch(held, { fulfillment: { hold: true } })).status).toBe(202);
    const split = await patch(held, { fulfillment: { split: { type: "orders" } } });
    expect(split).toMatchObject({ status: 422, body: { errors: ["fulfillment.split.type cannot be set while fulfillment.hold is true"] } });
    expect((await read(held)).fulfillment.split).toMatchObject({ type: null, enabled: false });

    const splitting = await newOffer(env);
    expect((await patch(splitting, { fulfillment: { split: { type: "fulfillments" } } })).status).toBe(202);
    const hold = await patch(splitting, { fulfillment: { hold: true } });
    expect(hold).toMatchObject({ status: 422, body: { errors: ["fulfillment.hold cannot be true while fulfillment.split is on"] } });

    const both = await patch(await newOffer(env), { fulfillment: { hold: true, split: { type: "fulfillments" } } });
    expect(both).toMatchObject({ status: 422, body: { errors: ["fulfillment.hold cannot be true while fulfillment.split is on"] } });

    // Turning the split off in the same request makes the hold legal.
    const swap = await patch(splitting, { fulfillment: { hold: true, split: { type: null } } });
    expect(swap.status).toBe(202);
    expect(swap.body).toMatchObject({ fulfillment: { hold: true, split: { type: null, enabled: false } } });
  });

  it("rule 2: split.type is fulfillments or orders, two distinct settings", async () => {
    const id = await newOffer(env);
    const fulfillments = await patch(id, { fulfillment: { split: { type: "fulfillments" } } });
    expect(fulfillments.body).toMatchObject({ fulfillment: { split: { type: "fulfillments", enabled: true } } });
    const orders = await patch(id, { fulfillment: { split: { type: "orders" } } });
    expect(orders.body).toMatchObject({ fulfillment: { split: { type: "orders", enabled: true } } });
    expect((await patch(id, { fulfillment: { split: { type: "both" } } })).body).toEqual({
      errors: ["fulfillment.split.type must be one of: fulfillments, orders"],
    });
  });

  it("rule 3: fulfillments needs delivery.type asap, already or in the same request", async () => {
    const id = await newOffer(env, { shipping: { delivery: { type: "on_date", date: "2026-12-01T00:00:00Z" } } });
    const refused = await patch(id, { fulfillment: { split: { type: "fulfillments" } } });
    expect(refused).toMatchObject({ status: 422, body: { errors: ["fulfillment.split.type cannot be fulfillments unless delivery.type is asap"] } });

    const together = await patch(id, { delivery: { type: "asap" }, fulfillment: { split: { type: "fulfillments" } } });
    expect(together.status).toBe(202);
    expect(together.body).toMatchObject({ delivery: { type: "asap", date: null }, fulfillment: { split: { type: "fulfillments" } } });

    const back = await patch(id, { delivery: { type: "on_date", date: "2026-12-01T00:00:00Z" } });
    expect(back).toMatchObject({ status: 422, body: { errors: ["delivery.type must be asap while fulfillment.split.type is fulfillments"] } });

    // orders has no such need
    const orders = await newOffer(env, { shipping: { delivery: { type: "on_date", date: "2026-12-01T00:00:00Z" } } });
    expect((await patch(orders, { fulfillment: { split: { type: "orders" } } })).status).toBe(202);
  });

  it("rule 4: split.enabled is a legacy toggle: true needs a type, false clears both", async () => {
    const id = await newOffer(env);
    const noType = await patch(id, { fulfillment: { split: { enabled: true } } });
    expect(noType).toMatchObject({ status: 422, body: { errors: ["fulfillment.split.type is required when fulfillment.split.enabled is true"] } });

    const withType = await patch(id, { fulfillment: { split: { enabled: true, type: "orders" } } });
    expect(withType.body).toMatchObject({ fulfillment: { split: { enabled: true, type: "orders" } } });
    // true again with the type already set is fine
    expect((await patch(id, { fulfillment: { split: { enabled: true } } })).status).toBe(202);

    const off = await patch(id, { fulfillment: { split: { enabled: false } } });
    expect(off.status).toBe(202);
    expect(off.body).toMatchObject({ fulfillment: { split: { enabled: false, type: null } } });

    const contradiction = await patch(id, { fulfillment: { split: { enabled: false, type: "orders" } } });
    expect(contradiction).toMatchObject({ status: 422, body: { errors: ["fulfillment.split.type is not allowed when fulfillment.split.enabled is false"] } });
  });

  it("rules 5-7: hold_fulfillments, sequential_number and per_variant are booleans of the split", async () => {
    const id = await newOffer(env);
    const answer = await patch(id, { fulfillment: { split: { type: "orders", hold_fulfillments: true, sequential_number: true, per_variant: true } } });
    expect(answer.body).toMatchObject({
      fulfillment: { split: { type: "orders", hold_fulfillments: true, sequential_number: true, per_variant: true } },
    });
    const wrong = await patch(id, { fulfillment: { split: { hold_fulfillments: "yes", sequential_number: 1, per_variant: null } } });
    expect(wrong.body).toEqual({
      errors: [
        "fulfillment.split.hold_fulfillments must be a boolean",
        "fulfillment.split.sequential_number must be a boolean",
        "fulfillment.split.per_variant must be a boolean",
      ],
    });
  });

  it("split into orders turns the platform selling plan off (and with it the deposit option)", async () => {
    const id = await newOffer(env);
    expect((await offerCall(env.app, env.key, "POST", id, "/payments/enable_option", { type: "deposit" })).status).toBe(202);
    expect((await patch(id, { fulfillment: { split: { type: "orders" } } })).status).toBe(202);
    const offer = (await offerCall(env.app, env.key, "GET", id)).body as { advanced: Json; payments: { mode: string; options: Json[] } };
    expect(offer.advanced.use_platform_selling_plan).toBe(false);
    expect(offer.payments.mode).toBe("full");
    expect(offer.payments.options.map((o) => [o.type, o.enabled])).toEqual([
      ["full", true],
      ["deposit", false],
    ]);
  });

  it("delivery: on_date needs a date; switching the type clears the other type's field", async () => {
    const id = await newOffer(env);
    expect((await patch(id, { delivery: { type: "on_date" } })).body).toEqual({ errors: ["delivery.date is required when delivery.type is on_date"] });
    expect((await patch(id, { delivery: { date: "2026-12-01T00:00:00Z" } })).body).toEqual({
      errors: ["delivery.date is not allowed when delivery.type is asap"],
    });
    expect((await patch(id, { delivery: { days: 5 } })).body).toMatchObject({ delivery: { type: "asap", days: 5 } });
    const onDate = await patch(id, { delivery: { type: "on_date", date: "2026-12-01T10:00:00-05:00" } });
    expect(onDate.body).toMatchObject({ delivery: { type: "on_date", date: "2026-12-01T15:00:00.000Z", days: null } });
    expect((await patch(id, { delivery: { days: 3 } })).body).toEqual({ errors: ["delivery.days is not allowed when delivery.type is on_date"] });
    expect((await patch(id, { delivery: { type: "asap" } })).body).toMatchObject({ delivery: { type: "asap", date: null } });
  });
});

describe("shipping named actions", () => {
  it("set_delivery_date delivers on a date; 409 while split into fulfillments", async () => {
    const id = await newOffer(env, { shipping: { delivery: { days: 4 } } });
    const answer = await action(id, "set_delivery_date", { date: "2026-12-24T00:00:00Z" });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ delivery: { type: "on_date", date: "2026-12-24T00:00:00.000Z", days: null } });
    expect((await action(id, "set_delivery_date", { date: "Christmas" })).body).toEqual({ errors: ["date must be an ISO 8601 timestamp"] });
    expect((await action(id, "set_delivery_date", {})).body).toEqual({ errors: ["date is required"] });

    const splitting = await newOffer(env, { shipping: { fulfillment: { split: { type: "fulfillments" } } } });
    const refused = await action(splitting, "set_delivery_date", { date: "2026-12-24T00:00:00Z" });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      errors: ["shipping/set_delivery_date refused: shipping.delivery.type must be asap while fulfillment.split.type is fulfillments"],
    });
    expect((await read(splitting)).delivery).toMatchObject({ type: "asap", date: null });
  });

  it("set_delivery_asap goes back to asap (with optional days)", async () => {
    const id = await newOffer(env, { shipping: { delivery: { type: "on_date", date: "2026-12-24T00:00:00Z" } } });
    const answer = await action(id, "set_delivery_asap", { days: 10 });
    expect(answer.body).toMatchObject({ delivery: { type: "asap", date: null, days: 10 } });
    expect((await action(id, "set_delivery_asap")).body).toMatchObject({ delivery: { type: "asap", days: 10 } });
  });

  it("set_delivery_days sets the days of an asap delivery; 409 for an on_date one", async () => {
    const id = await newOffer(env);
    expect((await action(id, "set_delivery_days", { days: 7 })).body).toMatchObject({ delivery: { type: "asap", days: 7 } });
    expect((await action(id, "set_delivery_days", { days: null })).body).toMatchObject({ delivery: { days: null } });
    expect((await action(id, "set_delivery_days", { days: 1.5 })).body).toEqual({ errors: ["days must be an integer"] });
    await action(id, "set_delivery_date", { date: "2026-12-24T00:00:00Z" });
    const refused = await action(id, "set_delivery_days", { days: 7 });
    expect(refused.status).toBe(409);
    expect((await read(id)).delivery).toMatchObject({ type: "on_date", days: null });
  });

  it("set_shipping_text, set_split_order_tag, set_split_order_suffix, set_split_transaction_gateway", async () => {
    const id = await newOffer(env);
    expect((await action(id, "set_shipping_text", { text: "Ships in June" })).body).toMatchObject({ display: { shipping_text: "Ships in June" } });
    expect((await action(id, "set_split_order_tag", { tag: "split-preorder" })).body).toMatchObject({ fulfillment: { split: { order_tag: "split-preorder" } } });
    expect((await action(id, "set_split_order_tag", { tag: "a,b" })).body).toEqual({ errors: ["tag must not contain a comma"] });
    expect((await action(id, "set_split_order_suffix", { suffix: "-PRE" })).body).toMatchObject({ fulfillment: { split: { order_suffix: "-PRE" } } });
    expect((await action(id, "set_split_order_suffix", { suffix: "x".repeat(21) })).body).toEqual({ errors: ["suffix must be at most 20 characters"] });
    expect((await action(id, "set_split_transaction_gateway", { gateway: "manual" })).body).toMatchObject({
      fulfillment: { split: { transaction_gateway: "manual" } },
    });
    expect((await action(id, "set_split_transaction_gateway", { gateway: null })).body).toMatchObject({ fulfillment: { split: { transaction_gateway: null } } });
    expect((await action(id, "set_split_transaction_gateway", {})).body).toEqual({ errors: ["gateway is required"] });
    expect((await action(id, "set_shipping_text", { text: "x", colour: 1 })).body).toEqual({ errors: ["colour is not allowed"] });
  });
});
