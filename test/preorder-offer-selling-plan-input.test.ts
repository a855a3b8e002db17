import { describe, expect, it } from "vitest";
import { inventorySchema } from "../src/preorders/offers/groups/inventory.ts";
import { paymentsSchema, shippingSchema } from "../src/preorders/offers/groups/plan-groups.ts";
import {
  type OfferForPlatform,
  sellingPlanGroupInputFromOffer,
  sellingPlanGroupUpdateFromOffer,
} from "../src/preorders/sync/selling-plan-input.ts";

/** An offer with every group at its defaults, changed by `groups` (each parsed by its own schema). */
function offer(groups: { payments?: unknown; shipping?: unknown; inventory?: unknown } = {}, names = { name: "Spring drop", internal_name: "SPRING-26" }): OfferForPlatform {
  return {
    id: "00000000-0000-4000-8000-000000000001",
    ...names,
    payments: paymentsSchema.parse(groups.payments ?? {}),
    shipping: shippingSchema.parse(groups.shipping ?? {}),
    inventory: inventorySchema.parse(groups.inventory ?? {}),
  };
}

const FULL = { type: "full", enabled: true, deposit_percent: null, title: "Pay in full", description: "Pay the whole price now." };
const DEPOSIT = { type: "deposit", enabled: true, deposit_percent: 30, title: "Pay a deposit", description: "Rest later." };

describe("sellingPlanGroupInputFromOffer", () => {
  it("maps the defaults to one PRE_ORDER plan charging 100% at checkout, delivered asap, reserved on sale", () => {
    expect(sellingPlanGroupInputFromOffer(offer())).toEqual({
      name: "Spring drop",
      merchantCode: "SPRING-26",
      options: ["Payment"],
      sellingPlansToCreate: [
        {
          name: "Pay in full",
          description: "Pay the whole price now.",
          options: ["Pay in full"],
          position: 0,
          category: "PRE_ORDER",
          billingPolicy: { fixed: { checkoutCharge: { type: "PERCENTAGE", value: { percentage: 100 } }, remainingBalanceChargeTrigger: "NO_REMAINING_BALANCE" } },
          deliveryPolicy: { fixed: { fulfillmentTrigger: "ASAP" } },
          inventoryPolicy: { reserve: "ON_SALE" },
          pricingPolicies: [],
        },
      ],
    });
  });

  it("a deposit charges its percentage, the balance a number of days after checkout", () => {
    const input = sellingPlanGroupInputFromOffer(offer({ payments: { options: [{ ...FULL, enabled: false }, DEPOSIT], remaining_balance: { due: { type: "days_after_checkout", days: 14 } } } }));
    expect(input.sellingPlansToCreate).toHaveLength(1);
    expect(input.sellingPlansToCreate?.[0]?.billingPolicy).toEqual({
      fixed: { checkoutCharge: { type: "PERCENTAGE", value: { percentage: 30 } }, remainingBalanceChargeTrigger: "TIME_AFTER_CHECKOUT", remainingBalanceChargeTimeAfterCheckout: "P14D" },
    });
  });

  it("a balance due on a date is charged at that exact time", () => {
    const input = sellingPlanGroupInputFromOffer(
      offer({ payments: { options: [{ ...FULL, enabled: false }, DEPOSIT], remaining_balance: { due: { type: "on_date", days: null, date: "2026-11-01T09:00:00.000Z" } } } }),
    );
    expect(input.sellingPlansToCreate?.[0]?.billingPolicy?.fixed).toMatchObject({
      remainingBalanceChargeTrigger: "EXACT_TIME",
      remainingBalanceChargeExactTime: "2026-11-01T09:00:00.000Z",
    });
  });

  it("a choice of full payment and deposit is two plans, one per option, with each option's copy and charge, in the widget's order", () => {
    const copy = { options: [{ ...FULL, title: "Everything now", description: "All of it today." }, { ...DEPOSIT, title: "A third now", description: "The rest in two weeks." }] };
    const plans = (showPartialFirst: boolean) =>
      sellingPlanGroupInputFromOffer(offer({ payments: { ...copy, show_partial_first: showPartialFirst } })).sellingPlansToCreate?.map((p) => [
        p.name,
        p.options,
        p.description,
        p.position,
        p.billingPolicy?.fixed?.checkoutCharge?.value?.percentage,
        p.billingPolicy?.fixed?.remainingBalanceChargeTrigger,
      ]);
    expect(plans(false)).toEqual([
      ["Everything now", ["Everything now"], "All of it today.", 0, 100, "NO_REMAINING_BALANCE"],
      ["A third now", ["A third now"], "The rest in two weeks.", 1, 30, "TIME_AFTER_CHECKOUT"],
    ]);
    expect(plans(true)?.map((p) => [p[0], p[3]])).toEqual([
      ["A third now", 0],
      ["Everything now", 1],
    ]);
  });

  it("two options with the same title get plans with different options (the platform refuses duplicates)", () => {
    const plans = sellingPlanGroupInputFromOffer(offer({ payments: { options: [{ ...FULL, title: "Preorder" }, { ...DEPOSIT, title: "Preorder" }] } })).sellingPlansToCreate;
    expect(plans?.map((p) => p.options)).toEqual([["Preorder"], ["Preorder (30%)"]]);
  });

  it("a blank option title falls back to a default one", () => {
    const plan = sellingPlanGroupInputFromOffer(offer({ payments: { options: [{ ...FULL, title: "" }] } })).sellingPlansToCreate?.[0];
    expect(plan).toMatchObject({ name: "Pay in full", options: ["Pay in full"] });
  });

  it("delivery on a date is EXACT_TIME; reservation on fulfillment is ON_FULFILLMENT", () => {
    const plan = sellingPlanGroupInputFromOffer(
      offer({ shipping: { delivery: { type: "on_date", date: "2026-12-01T00:00:00Z" } }, inventory: { reservation: { timing: "on_fulfillment" } } }),
    ).sellingPlansToCreate?.[0];
    expect(plan?.deliveryPolicy).toEqual({ fixed: { fulfillmentTrigger: "EXACT_TIME", fulfillmentExactTime: "2026-12-01T00:00:00.000Z" } });
    expect(plan?.inventoryPolicy).toEqual({ reserve: "ON_FULFILLMENT" });
  });

  it("maps the discount to a pricing policy; no_discount to none", () => {
    const pricing = (discount: unknown) => sellingPlanGroupInputFromOffer(offer({ payments: { discount } })).sellingPlansToCreate?.[0]?.pricingPolicies;
    expect(pricing({ type: "percentage", value: 10 })).toEqual([{ fixed: { adjustmentType: "PERCENTAGE", adjustmentValue: { percentage: 10 } } }]);
    expect(pricing({ type: "fixed_amount", value: 5 })).toEqual([{ fixed: { adjustmentType: "FIXED_AMOUNT", adjustmentValue: { fixedValue: "5.00" } } }]);
    expect(pricing({ type: "no_discount", value: null })).toEqual([]);
  });

  it("falls back to the name for a blank internal name", () => {
    expect(sellingPlanGroupInputFromOffer(offer({}, { name: "Drop", internal_name: " " })).merchantCode).toBe("Drop");
  });
});

describe("sellingPlanGroupUpdateFromOffer", () => {
  const plan = (id: number, option: "full" | "deposit" | null) => ({ id: `gid://shopify/SellingPlan/${id}`, option });

  it("updates each option's plan in place by its payment option, creates missing ones and deletes the rest", () => {
    // The single deposit plan of a choice offer from before (0032) stays the deposit plan; the full one is new.
    const grow = sellingPlanGroupUpdateFromOffer(offer({ payments: { options: [FULL, DEPOSIT] } }), [plan(1, "deposit")]);
    expect(grow.sellingPlansToUpdate?.map((p) => [p.id, p.name, p.position])).toEqual([["gid://shopify/SellingPlan/1", "Pay a deposit", 1]]);
    expect(grow.sellingPlansToCreate?.map((p) => [p.name, p.position])).toEqual([["Pay in full", 0]]);
    expect(grow.sellingPlansToDelete).toBeUndefined();

    // The platform's order does not matter: each keeps its id.
    const same = sellingPlanGroupUpdateFromOffer(offer({ payments: { options: [FULL, DEPOSIT] } }), [plan(2, "deposit"), plan(1, "full")]);
    expect(same.sellingPlansToUpdate?.map((p) => [p.id, p.name])).toEqual([
      ["gid://shopify/SellingPlan/1", "Pay in full"],
      ["gid://shopify/SellingPlan/2", "Pay a deposit"],
    ]);
    expect(same.sellingPlansToCreate).toBeUndefined();

    const none = sellingPlanGroupUpdateFromOffer(offer(), []);
    expect(none.sellingPlansToCreate?.map((p) => p.name)).toEqual(["Pay in full"]);
    expect(none.sellingPlansToUpdate).toBeUndefined();

    // The deposit disabled: its plan goes, and so do one of no option and a second full one.
    const shrink = sellingPlanGroupUpdateFromOffer(offer(), [plan(1, "full"), plan(2, "deposit"), plan(3, null), plan(4, "full")]);
    expect(shrink.sellingPlansToUpdate?.map((p) => p.id)).toEqual(["gid://shopify/SellingPlan/1"]);
    expect(shrink.sellingPlansToCreate).toBeUndefined();
    expect(shrink.sellingPlansToDelete).toEqual(["gid://shopify/SellingPlan/2", "gid://shopify/SellingPlan/3", "gid://shopify/SellingPlan/4"]);
    expect(shrink).toMatchObject({ name: "Spring drop", merchantCode: "SPRING-26", options: ["Payment"] });
  });
});
