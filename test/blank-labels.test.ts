import { beforeAll, describe, expect, it } from "vitest";
import { invoke } from "./helpers/app.ts";
import { createOffer } from "./helpers/offers.ts";
import { useTestEnv } from "./helpers/fixture.ts";

/** Required labels that a storefront shows refuse whitespace alone, as names do. */

const env = useTestEnv();
let offerId: string;

beforeAll(async () => {
  offerId = (await createOffer(env.app, env.key)).id;
});

describe("blank required labels", () => {
  it.each([
    ["widget/set_button_text", { text: "  " }, "text"],
    ["advanced/set_button_text_override", { state: "out_of_stock", text: "\t" }, "text"],
    ["payments/set_option_copy", { type: "full", title: " \n " }, "title"],
    ["shipping/set_split_transaction_gateway", { gateway: "   " }, "gateway"],
  ])("POST %s refuses whitespace alone", async (action, body, field) => {
    const answer = await invoke(env.app, "POST", `/preorders/offers/${offerId}/${action}`, { key: env.key, body });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 422, body: { errors: [`${field} must not be blank`] } });
  });

  it("PATCH widget refuses a blank button text and keeps the old one", async () => {
    const answer = await invoke(env.app, "PATCH", `/preorders/offers/${offerId}/widget`, { key: env.key, body: { button: { text: "   " } } });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 422, body: { errors: ["button.text must not be blank"] } });
    const widget = await invoke(env.app, "GET", `/preorders/offers/${offerId}/widget`, { key: env.key });
    expect((widget.body as { button: { text: string } }).button.text).toBe("Preorder");
  });

  it("v1 refuses a blank preorder_button_text in v1's envelope", async () => {
    const response = await fetch(`${env.app.origin}/api/v1/external/preorders`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-auth-token": env.key },
      body: JSON.stringify({ selling_plan: { name: "Plan", preorder_button_text: "  " } }),
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ errors: { preorder_button_text: ["must not be blank"] } });
  });
});
