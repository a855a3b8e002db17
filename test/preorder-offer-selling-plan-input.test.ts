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

  it("a choice of full payment and deposit is the deposit plan: one plan, one id for orders to match", () => {
    const plans = sellingPlanGroupInputFromOffer(offer({ payments: { options: [FULL, DEPOSIT], show_partial_first: false } })).sellingPlansToCreate;
    expect(plans?.map((p) => [p.name, p.position, p.billingPolicy?.fixed?.checkoutCharge?.value?.percentage])).toEqual([["Pay a deposit", 0, 30]]);
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
  it("updates existing plans by position, creates missing ones and deletes the surplus", () => {
    const same = sellingPlanGroupUpdateFromOffer(offer({ payments: { options: [FULL, DEPOSIT] } }), ["gid://platform/SellingPlan/1"]);
    expect(same.sellingPlansToUpdate?.map((p) => [p.id, p.name])).toEqual([["gid://platform/SellingPlan/1", "Pay a deposit"]]);
    expect(same.sellingPlansToCreate).toBeUndefined();
    expect(same.sellingPlansToDelete).toBeUndefined();

    const none = sellingPlanGroupUpdateFromOffer(offer(), []);
    expect(none.sellingPlansToCreate?.map((p) => p.name)).toEqual(["Pay in full"]);
    expect(none.sellingPlansToUpdate).toBeUndefined();

    const shrink = sellingPlanGroupUpdateFromOffer(offer(), ["gid://platform/SellingPlan/1", "gid://platform/SellingPlan/2"]);
    expect(shrink.sellingPlansToUpdate?.map((p) => p.id)).toEqual(["gid://platform/SellingPlan/1"]);
    expect(shrink.sellingPlansToCreate).toBeUndefined();
    expect(shrink.sellingPlansToDelete).toEqual(["gid://platform/SellingPlan/2"]);
    expect(shrink).toMatchObject({ name: "Spring drop", merchantCode: "SPRING-26", options: ["Payment"] });
  });
});
