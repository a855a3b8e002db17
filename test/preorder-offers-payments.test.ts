import { describe, expect, it } from "vitest";
import { invoke } from "./helpers/app.ts";
import { type Json, newOffer, offerCall } from "./helpers/offers.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv();

const patch = (id: string, body: unknown) => offerCall(env.app, env.key, "PATCH", id, "/payments", body);
const action = (id: string, name: string, body: unknown = {}) => offerCall(env.app, env.key, "POST", id, `/payments/${name}`, body);

interface Payments {
  mode: string;
  discount: { type: string | null; value: number | null };
  options: { type: string; enabled: boolean; deposit_percent: number | null; title: string; description: string }[];
  remaining_balance: Json;
  show_partial_first: boolean;
}
const read = async (id: string) => (await offerCall(env.app, env.key, "GET", id, "/payments")).body as Payments;

describe("payments: GET and PATCH", () => {
  it("reads the group with the derived mode first", async () => {
    const id = await newOffer(env);
    const payments = await read(id);
    expect(Object.keys(payments)).toEqual(["mode", "discount", "options", "remaining_balance", "show_partial_first", "billing_widget_text"]);
    expect(payments.mode).toBe("full");
  });

  it("merges a deep-partial change", async () => {
    const id = await newOffer(env);
    const answer = await patch(id, { remaining_balance: { due: { days: 14 } }, show_partial_first: true });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({
      show_partial_first: true,
      remaining_balance: { auto_collect: false, auto_collect_on_fulfillment: false, due: { type: "days_after_checkout", days: 14, date: null } },
    });
    const due = await patch(id, { remaining_balance: { due: { type: "on_date", date: "2027-01-15T00:00:00Z" } } });
    expect(due.body).toMatchObject({ remaining_balance: { due: { type: "on_date", date: "2027-01-15T00:00:00.000Z", days: null } } });
    expect((await patch(id, { remaining_balance: { due: { type: "days_after_checkout" } } })).body).toEqual({
      errors: ["remaining_balance.due.days is required when remaining_balance.due.type is days_after_checkout"],
    });
  });

  it("rule 1: auto_collect and auto_collect_on_fulfillment are mutually exclusive", async () => {
    const id = await newOffer(env);
    expect((await patch(id, { remaining_balance: { auto_collect: true } })).status).toBe(202);
    const second = await patch(id, { remaining_balance: { auto_collect_on_fulfillment: true } });
    expect(second).toMatchObject({
      status: 422,
      body: { errors: ["remaining_balance.auto_collect_on_fulfillment cannot be true while remaining_balance.auto_collect is true"] },
    });
    const both = await patch(await newOffer(env), { remaining_balance: { auto_collect: true, auto_collect_on_fulfillment: true } });
    expect(both).toMatchObject({
      status: 422,
      body: { errors: ["remaining_balance.auto_collect cannot be true while remaining_balance.auto_collect_on_fulfillment is true"] },
    });
    const swap = await patch(id, { remaining_balance: { auto_collect: false, auto_collect_on_fulfillment: true } });
    expect(swap.body).toMatchObject({ remaining_balance: { auto_collect: false, auto_collect_on_fulfillment: true } });
    expect((await patch(id, { remaining_balance: { auto_collect: "on" } })).body).toEqual({ errors: ["remaining_balance.auto_collect must be a boolean"] });
  });

  it("rule 2: discount.type no_discount clears the discount; the value becomes null", async () => {
    const id = await newOffer(env);
    const set = await patch(id, { discount: { type: "percentage", value: 15 } });
    expect(set.body).toMatchObject({ discount: { type: "percentage", value: 15 } });
    const cleared = await patch(id, { discount: { type: "no_discount" } });
    expect(cleared.status).toBe(202);
    expect(cleared.body).toMatchObject({ discount: { type: "no_discount", value: null } });
    // even with a value sent alongside
    await patch(id, { discount: { type: "fixed_amount", value: 5 } });
    expect((await patch(id, { discount: { type: "no_discount", value: 5 } })).body).toMatchObject({ discount: { type: "no_discount", value: null } });
    expect((await read(id)).discount).toEqual({ type: "no_discount", value: null });
  });

  it("a discount needs a value in range", async () => {
    const id = await newOffer(env);
    expect((await patch(id, { discount: { type: "percentage" } })).body).toEqual({ errors: ["discount.value is required when discount.type is percentage"] });
    expect((await patch(id, { discount: { type: "percentage", value: 120 } })).body).toEqual({ errors: ["discount.value must be at most 100"] });
    expect((await patch(id, { discount: { type: "fixed_amount", value: 0 } })).body).toEqual({ errors: ["discount.value must be greater than 0"] });
    expect((await patch(id, { discount: { type: "bogof" } })).body).toEqual({ errors: ["discount.type must be one of: no_discount, percentage, fixed_amount"] });
    expect((await patch(id, { discount: { type: "fixed_amount", value: 250 } })).body).toMatchObject({ discount: { type: "fixed_amount", value: 250 } });
  });

  it("rule 3: options are not edited by the PATCH, nor the mode; the 422 names the actions that set them", async () => {
    const id = await newOffer(env);
    const answer = await patch(id, { options: [{ type: "deposit", enabled: true }], mode: "deposit" });
    expect(answer).toMatchObject({
      status: 422,
      body: {
        errors: [
          "options is not allowed: payment options are edited by POST /preorders/offers/{id}/payments/enable_option, disable_option and set_option_copy",
          "mode is not allowed: the mode follows from the enabled payment options; set them with POST /preorders/offers/{id}/payments/enable_option and disable_option (type full or deposit; both enabled: choice)",
        ],
      },
    });
    // The create takes the groups as their PATCH does: the same field, with its group's prefix.
    const create = await invoke(env.app, "POST", "/preorders/offers", { key: env.key, body: { name: "Deposit drop", payments: { mode: "deposit" } } });
    expect(create).toMatchObject({
      status: 422,
      body: {
        errors: [
          "payments.mode is not allowed: the mode follows from the enabled payment options; set them with POST /preorders/offers/{id}/payments/enable_option and disable_option (type full or deposit; both enabled: choice)",
        ],
      },
    });
    // An unknown field with no such pointer keeps the plain message.
    expect((await patch(id, { modee: "deposit" })).body).toEqual({ errors: ["modee is not allowed"] });
  });
});

describe("payments: option actions", () => {
  it("set_option_copy sets an option's title and description", async () => {
    const id = await newOffer(env);
    const answer = await action(id, "set_option_copy", { type: "deposit", title: "Reserve with 20%" });
    expect(answer.status).toBe(202);
    expect((answer.body as Payments).options.find((o) => o.type === "deposit")).toMatchObject({
      title: "Reserve with 20%",
      description: "Pay part of the price now and the rest before the item ships.",
    });
    const description = await action(id, "set_option_copy", { type: "full", description: "All now." });
    expect((description.body as Payments).options.find((o) => o.type === "full")).toMatchObject({ title: "Pay in full", description: "All now." });
    expect((await action(id, "set_option_copy", { type: "full" })).body).toEqual({ errors: ["title is required unless description is given"] });
    expect((await action(id, "set_option_copy", { type: "later", title: "x" })).body).toEqual({ errors: ["type must be one of: full, deposit"] });
  });

  it("enable_option and disable_option switch options; the mode follows", async () => {
    const id = await newOffer(env);
    const both = await action(id, "enable_option", { type: "deposit", deposit_percent: 20 });
    expect(both.status).toBe(202);
    expect(both.body).toMatchObject({ mode: "choice" });
    expect((both.body as Payments).options.find((o) => o.type === "deposit")).toMatchObject({ enabled: true, deposit_percent: 20 });
    const depositOnly = await action(id, "disable_option", { type: "full" });
    expect(depositOnly.body).toMatchObject({ mode: "deposit" });
    // idempotent
    expect((await action(id, "disable_option", { type: "full" })).body).toEqual(depositOnly.body);
    expect((await action(id, "enable_option", { type: "deposit" })).body).toEqual(depositOnly.body);
  });

  it("refuses to disable the only enabled option (409)", async () => {
    const id = await newOffer(env);
    const refused = await action(id, "disable_option", { type: "full" });
    expect(refused.status).toBe(409);
    expect((await read(id)).options.find((o) => o.type === "full")?.enabled).toBe(true);
  });

  it("validates deposit_percent", async () => {
    const id = await newOffer(env);
    expect((await action(id, "enable_option", { type: "deposit", deposit_percent: 100 })).body).toEqual({ errors: ["deposit_percent must be at most 99"] });
    expect((await action(id, "enable_option", { type: "full", deposit_percent: 10 })).body).toEqual({ errors: ["deposit_percent is not allowed when type is full"] });
  });

  it("refuses the deposit option without the platform selling plan (409)", async () => {
    const id = await newOffer(env, { advanced: { use_platform_selling_plan: false } });
    const refused = await action(id, "enable_option", { type: "deposit" });
    expect(refused.status).toBe(409);
    expect((await read(id)).mode).toBe("full");
  });

  it("detaching the platform selling plan turns an enabled deposit option off", async () => {
    const id = await newOffer(env);
    await action(id, "enable_option", { type: "deposit" });
    await action(id, "disable_option", { type: "full" });
    const detached = await offerCall(env.app, env.key, "PATCH", id, "/advanced", { use_platform_selling_plan: false });
    expect(detached.status).toBe(202);
    const payments = await read(id);
    expect(payments.mode).toBe("full");
    expect(payments.options.map((o) => [o.type, o.enabled])).toEqual([
      ["full", true],
      ["deposit", false],
    ]);
  });
});
