import { beforeAll, describe, expect, it } from "vitest";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv({ shop: "Offer Defaults Shop" });
let otherKey: string;

beforeAll(async () => {
  ({ apiKey: otherKey } = await createShopWithKey(env.app.pool, "Other Defaults Shop"));
});

interface OfferBody {
  widget: { button: { text: string } };
  checkout: { order_tags: { tags: string[] } };
  payments: { remaining_balance: { auto_collect: boolean; auto_collect_on_fulfillment: boolean; due: { type: string; days: number | null; date: string | null } } };
}

const create = async (key: string, body: Record<string, unknown>) => {
  const answer = await invoke(env.app, "POST", "/preorders/offers", { key, body });
  expect(answer.status).toBe(202);
  return answer.body as OfferBody;
};

describe("offer_defaults of the preorder settings", () => {
  it("are null by default: a new offer takes its own defaults", async () => {
    const settings = await invoke(env.app, "GET", "/preorders/settings", { key: env.key });
    expect(settings).toMatchObject({ status: 200, body: { offer_defaults: { button_text: null, order_tags: null, auto_collect: null, balance_due_days: null } } });
    const offer = await create(env.key, { name: "Plain" });
    expect(offer.widget.button.text).toBe("Preorder");
    expect(offer.checkout.order_tags.tags).toEqual(["preorder"]);
    expect(offer.payments.remaining_balance).toMatchObject({ auto_collect: false, due: { type: "days_after_checkout", days: 30 } });
  });

  it("refuses bad values, one message per field, and saves nothing", async () => {
    const answer = await invoke(env.app, "PATCH", "/preorders/settings", {
      key: env.key,
      body: { offer_defaults: { button_text: "  ", order_tags: ["a,b"], auto_collect: "yes", balance_due_days: 400, colour: "red" } },
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({
      errors: [
        "offer_defaults.button_text must not be blank",
        "offer_defaults.order_tags.0 must not contain a comma",
        "offer_defaults.auto_collect must be a boolean",
        "offer_defaults.balance_due_days must be at most 365",
        "offer_defaults.colour is not allowed",
      ],
    });
    expect((await invoke(env.app, "GET", "/preorders/settings", { key: env.key })).body).toMatchObject({ offer_defaults: { button_text: null, order_tags: null } });
  });

  it("fill what the create body leaves out; what it sends wins; other shops are not affected; null resets", async () => {
    const patched = await invoke(env.app, "PATCH", "/preorders/settings", {
      key: env.key,
      body: { offer_defaults: { button_text: "Reserve now", order_tags: ["pre-spring", "ship-later"], auto_collect: true, balance_due_days: 14 } },
    });
    expect(patched).toMatchObject({ status: 202, body: { offer_defaults: { button_text: "Reserve now", order_tags: ["pre-spring", "ship-later"], auto_collect: true, balance_due_days: 14 } } });

    const defaulted = await create(env.key, { name: "Defaulted" });
    expect(defaulted.widget.button.text).toBe("Reserve now");
    expect(defaulted.checkout.order_tags.tags).toEqual(["pre-spring", "ship-later"]);
    expect(defaulted.payments.remaining_balance).toMatchObject({ auto_collect: true, auto_collect_on_fulfillment: false, due: { type: "days_after_checkout", days: 14, date: null } });

    // The body's own values win, and a default that would contradict the body is not applied.
    const own = await create(env.key, {
      name: "Own",
      widget: { button: { text: "Order ahead" } },
      checkout: { order_tags: { tags: [] } },
      payments: { remaining_balance: { auto_collect_on_fulfillment: true, due: { type: "on_date", date: "2027-05-01T00:00:00.000Z" } } },
    });
    expect(own.widget.button.text).toBe("Order ahead");
    expect(own.checkout.order_tags.tags).toEqual([]);
    expect(own.payments.remaining_balance).toMatchObject({ auto_collect: false, auto_collect_on_fulfillment: true, due: { type: "on_date", days: null, date: "2027-05-01T00:00:00.000Z" } });

    const other = await create(otherKey, { name: "Elsewhere" });
    expect(other.widget.button.text).toBe("Preorder");

    await invoke(env.app, "PATCH", "/preorders/settings", { key: env.key, body: { offer_defaults: { button_text: null, auto_collect: null } } });
    const reset = await create(env.key, { name: "Reset" });
    expect(reset.widget.button.text).toBe("Preorder");
    expect(reset.payments.remaining_balance).toMatchObject({ auto_collect: false, due: { days: 14 } });
    expect(reset.checkout.order_tags.tags).toEqual(["pre-spring", "ship-later"]);
  });
});
