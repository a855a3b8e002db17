import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { decoded, emulatorOrder, emulatorOrderEvent, emulatorPlan, insertOfferOnPlan, settledNotifications } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";

// bulk_send_payment_collection_url (decision 0207): the platform's link to pay an order's remaining
// balance, sent to the customer as a payment_request notification.
const env = useTestEnv({
  shop: "Collection Shop",
  emulator: { seed: { products: 2, variantsPerProduct: 1, locations: 1, markets: 1, collections: 1 }, throttle: { maximumAvailable: 100_000, restoreRate: 100_000 }, webhooks: { backoffMs: 50 } },
  connect: true,
  worker: true,
  smtp: { keepRaw: true },
});

interface JobBody {
  status: string;
  result: { counts: Record<string, number>; outcomes: { order_id: string; outcome: string; reason: string | null; channels?: string[] }[] };
}

/** The payment request e-mails the sink received for an address (confirmations go there too). */
const requests = (to: string) => env.sink.to(to).filter((m) => m.subject.startsWith("Pay the balance"));

async function finishedJob(handle: unknown): Promise<JobBody> {
  const { status_url: statusUrl } = handle as { status_url: string };
  return waitFor("the job to finish", async () => {
    const answer = await invoke(env.app, "GET", statusUrl.replace("/api/v2/external", ""), { key: env.key });
    const job = answer.body as JobBody;
    return ["completed", "failed", "cancelled"].includes(job.status) ? job : undefined;
  });
}

let plan: string;
let variant: number;

beforeAll(async () => {
  ({ planGid: plan, variantId: variant } = await emulatorPlan(env, 0));
  await insertOfferOnPlan(env.app.pool, env.shopId, plan, {});
});

describe("bulk_send_payment_collection_url", () => {
  it("e-mails each owing order's customer the platform's payment link; a paid, a cancelled and an unknown order get none", async () => {
    const owing = await emulatorOrder(env, { line_items: [{ variant_id: variant, quantity: 2, price: "40.00" }], selling_plan_id: plan, email: "owes@example.com", financial_status: "partially_paid", amount_paid: "20.00" });
    const paid = await emulatorOrder(env, { line_items: [{ variant_id: variant, quantity: 1, price: "40.00" }], selling_plan_id: plan, email: "paid@example.com", financial_status: "paid" });
    const cancelled = await emulatorOrder(env, { line_items: [{ variant_id: variant, quantity: 1, price: "40.00" }], selling_plan_id: plan, email: "gone@example.com", financial_status: "partially_paid" });
    await emulatorOrderEvent(env, cancelled.platform.id, "cancel");
    const unknown = randomUUID();

    const answer = await invoke(env.app, "POST", "/preorders/orders/bulk_send_payment_collection_url", { key: env.key, body: { order_ids: [owing.orderId, paid.orderId, cancelled.orderId, unknown] } });
    expect(answer.status).toBe(202);
    const job = await finishedJob(answer.body);
    expect(job.status).toBe("completed");
    expect(job.result.outcomes).toEqual([
      { order_id: owing.orderId, outcome: "sent", reason: null, channels: ["email"] },
      { order_id: paid.orderId, outcome: "skipped", reason: "no balance is owed" },
      { order_id: cancelled.orderId, outcome: "refused", reason: `Preorder order ${cancelled.orderId} is cancelled` },
      { order_id: unknown, outcome: "refused", reason: `Preorder order not found: ${unknown}` },
    ]);

    const [sent] = await settledNotifications(env, owing.orderId, "payment_request");
    expect(sent).toMatchObject({ channel: "email", status: "sent" });
    const url = `https://${env.emulator.shopDomain}/orders/${owing.platform.id}/pay?key=`;
    const mail = await waitFor("the payment request e-mail", async () => requests("owes@example.com")[0]);
    const body = decoded(mail.raw);
    expect(body).toContain(url);
    expect(body).toContain("The remaining balance of 60.00");
    expect(requests("paid@example.com")).toEqual([]);
    expect(requests("gone@example.com")).toEqual([]);
  });

  it("is blocked, not sent, while the payment_request stage is off; a second request sends again once it is on", async () => {
    const owing = await emulatorOrder(env, { line_items: [{ variant_id: variant, quantity: 1, price: "50.00" }], selling_plan_id: plan, email: "twice@example.com", financial_status: "partially_paid" });
    const off = await invoke(env.app, "PATCH", "/preorders/templates/payment_request/en", { key: env.key, body: { enabled: false } });
    expect(off.status).toBe(202);
    const first = await finishedJob((await invoke(env.app, "POST", "/preorders/orders/bulk_send_payment_collection_url", { key: env.key, body: { order_ids: [owing.orderId] } })).body);
    expect(first.result.outcomes[0]?.outcome).toBe("sent");
    const [blocked] = await settledNotifications(env, owing.orderId, "payment_request");
    expect(blocked).toMatchObject({ status: "blocked", blocked_reason: "stage_disabled" });

    await invoke(env.app, "PATCH", "/preorders/templates/payment_request/en", { key: env.key, body: { enabled: true } });
    await finishedJob((await invoke(env.app, "POST", "/preorders/orders/bulk_send_payment_collection_url", { key: env.key, body: { order_ids: [owing.orderId] } })).body);
    const list = await settledNotifications(env, owing.orderId, "payment_request", 2);
    expect(list.map((n) => n.status).sort()).toEqual(["blocked", "sent"]);
    expect(requests("twice@example.com")).toHaveLength(1);
  });
});
