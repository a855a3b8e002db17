import { beforeAll, describe, expect, it } from "vitest";
import { legacyIdOf } from "../src/platform/emulator/ids.ts";
import { SHOP_ID } from "../src/platform/emulator/ids.ts";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { mirrorVariants, offerSyncRow, waitSynced } from "./helpers/offer-sync.ts";
import { newOffer, offerCall } from "./helpers/offers.ts";
import { emulatorOrderEvent } from "./helpers/preorder-shop.ts";
import { setStock } from "./helpers/storefront.ts";
import { waitFor } from "./helpers/wait.ts";
import { webhooksProcessed } from "./helpers/webhook-delivery.ts";

/**
 * per_customer.max and total.max refused at the checkout, before the order (decision 0211): the
 * service keeps the offers' remaining units on the shop and each customer's units on the customer
 * (app metafields, written by jobs queued with the orders' changes), and the app's cart and
 * checkout validation (the emulator's) reads them from its input: the shop's metafield and the
 * signed-in buyer's. A cancelled order frees its units in both.
 */
const env = useTestEnv({
  shop: "Limit Counters Shop",
  emulator: { seed: { products: 3, variantsPerProduct: 1, locations: 1, markets: 1, collections: 1 }, throttle: { maximumAvailable: 100_000, restoreRate: 100_000 }, webhooks: { backoffMs: 20 } },
  connect: "synced",
  worker: true,
});

interface CheckoutAnswer {
  status: number;
  json: { errors?: { localizedMessage: string; target: string }[]; order?: { id: string; name: string } };
}

/** A shopper of the emulator's online store: keeps its cookies (cart, customer) across requests. */
function shopper() {
  let cookie = "";
  return async (method: string, path: string, body?: unknown): Promise<CheckoutAnswer> => {
    const response = await fetch(`${env.emulator.origin}${path}`, {
      method,
      headers: { ...(cookie ? { cookie } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }), accept: "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      redirect: "manual",
    });
    for (const set of response.headers.getSetCookie()) {
      const [pair = ""] = set.split(";");
      const [name] = pair.split("=");
      cookie = [...cookie.split("; ").filter((c) => c !== "" && !c.startsWith(`${name}=`)), pair].join("; ");
    }
    const text = await response.text();
    return { status: response.status, json: (text.startsWith("{") ? JSON.parse(text) : {}) as CheckoutAnswer["json"] };
  };
}

type Shopper = ReturnType<typeof shopper>;

const namespace = () => `app--${env.emulator.appId}--preorder`;

/** A json app metafield on the emulator, parsed; undefined when absent. */
function counterOn(ownerType: "SHOP" | "CUSTOMER", ownerId: number, key: string): Record<string, number> | undefined {
  const found = env.emulator.store.metafield(ownerType, ownerId, namespace(), key);
  return found ? (JSON.parse(found.value) as Record<string, number>) : undefined;
}

/** Waits until the counter on the platform reads `expected` for the offer (undefined: not there). */
async function counterReads(ownerType: "SHOP" | "CUSTOMER", ownerId: number, key: string, offerId: string, expected: number | undefined): Promise<void> {
  await waitFor(`${ownerType} ${ownerId} ${key}[${offerId}] = ${expected}`, async () => (counterOn(ownerType, ownerId, key)?.[offerId] === expected ? true : undefined));
}

/** Adds `quantity` of the variant on the offer's plan to the shopper's cart and checks out with `email`. */
async function checkout(go: Shopper, variant: number, plan: number, quantity: number, email = "guest@example.com"): Promise<CheckoutAnswer> {
  expect((await go("POST", "/cart/add.js", { id: variant, quantity, selling_plan: plan })).status).toBe(200);
  // The e-mail matters: the per-customer rule counts a customer's orders and those of their e-mail address.
  const answer = await go("POST", "/checkout", { email });
  if (answer.status !== 201) {
    // Refused: the cart is kept; empty it for the next try.
    expect((await go("POST", "/cart/change.js", { line: 1, quantity: 0 })).status).toBe(200);
  }
  return answer;
}

/** The service's id of an order the checkout placed, once its webhook was processed. */
async function serviceOrder(answer: CheckoutAnswer): Promise<string> {
  expect(answer.status).toBe(201);
  await env.emulator.webhooksSettled();
  await webhooksProcessed(env.app.pool);
  const { rows } = await env.app.pool.query<{ id: string }>("select id from preorder_orders where platform_order_id = $1", [answer.json.order?.id]);
  const id = rows[0]?.id;
  if (!id) throw new Error("the checkout's order did not arrive");
  return id;
}

async function offerOn(variant: number, limits: Record<string, unknown>): Promise<{ offerId: string; plan: number }> {
  const offerId = await newOffer(env, { name: `Limited ${variant}`, products: { variant_ids: [variant] } }, { enable: true });
  const patched = await offerCall(env.app, env.key, "PATCH", offerId, "/limits", limits);
  expect(patched.status, JSON.stringify(patched.body)).toBe(202);
  await waitSynced(env, offerId);
  const plan = legacyIdOf("SellingPlan", (await offerSyncRow(env, offerId)).platform_selling_plan_id);
  if (plan === undefined) throw new Error("no selling plan");
  return { offerId, plan };
}

let variants: number[];
beforeAll(async () => {
  variants = (await mirrorVariants(env)).map((v) => v.legacy_id);
  for (const v of variants) setStock(env.emulator, v, 50);
});

describe("per_customer.max and total.max are refused at the checkout", () => {
  it("a customer who already holds per_customer.max units is refused; another customer is not; a cancelled order frees them", async () => {
    const variant = variants[0] ?? 0;
    const { offerId, plan } = await offerOn(variant, { per_customer: { max: 2 } });
    const [first, second] = env.emulator.store.customers;
    if (!first || !second) throw new Error("no seeded customers");
    const alice = shopper();
    expect((await alice("GET", `/account/login?customer_id=${first.id}`)).status).toBe(303);
    const placed = await serviceOrder(await checkout(alice, variant, plan, 2, "alice@example.com"));
    // The job wrote her units on her customer record, where the checkout's validation reads them.
    await counterReads("CUSTOMER", first.id, "units", offerId, 2);

    const refused = await checkout(alice, variant, plan, 1, "alice@example.com");
    expect(refused.status).toBe(422);
    expect(refused.json.errors).toEqual([{ localizedMessage: expect.stringMatching(/at most 2 of .* per customer; you have preordered 2 already/) as string, target: "$.cart.lines[0].quantity" }]);

    const bob = shopper();
    expect((await bob("GET", `/account/login?customer_id=${second.id}`)).status).toBe(303);
    await serviceOrder(await checkout(bob, variant, plan, 2, "bob@example.com"));
    await counterReads("CUSTOMER", second.id, "units", offerId, 2);

    // Her order cancelled in the app: her units are free again, on the platform too.
    expect((await invoke(env.app, "POST", `/preorders/orders/${placed}/cancel`, { key: env.key, body: {} })).status).toBe(202);
    await counterReads("CUSTOMER", first.id, "units", offerId, undefined);
    await serviceOrder(await checkout(alice, variant, plan, 2, "alice@example.com"));
  });

  it("a per_customer.max set after the orders: the customers who already preordered get their counter, and are held to it", async () => {
    const variant = variants[2] ?? 0;
    const { offerId, plan } = await offerOn(variant, { per_order: { max: null } });
    const customer = env.emulator.store.customers[2];
    if (!customer) throw new Error("no seeded customer");
    const carol = shopper();
    expect((await carol("GET", `/account/login?customer_id=${customer.id}`)).status).toBe(303);
    await serviceOrder(await checkout(carol, variant, plan, 3, "carol@example.com"));
    // No per-customer limit: no counter of hers is written.
    expect(counterOn("CUSTOMER", customer.id, "units")).toBeUndefined();

    const patched = await offerCall(env.app, env.key, "PATCH", offerId, "/limits", { per_customer: { max: 3 } });
    expect(patched.status).toBe(202);
    await waitSynced(env, offerId);
    await counterReads("CUSTOMER", customer.id, "units", offerId, 3);
    const refused = await checkout(carol, variant, plan, 1, "carol@example.com");
    expect(refused.json.errors?.map((e) => e.localizedMessage)).toEqual([expect.stringContaining("per customer; you have preordered 3 already") as string]);
  });

  it("a checkout above the offer's remaining total.max is refused; a cancelled order gives its units back", async () => {
    const variant = variants[1] ?? 0;
    const { offerId, plan } = await offerOn(variant, { total: { max: 3 } });
    // Written when the limit was set: nothing preordered yet.
    await counterReads("SHOP", SHOP_ID, "remaining", offerId, 3);
    const guest = shopper();
    const placed = await checkout(guest, variant, plan, 2);
    await serviceOrder(placed);
    await counterReads("SHOP", SHOP_ID, "remaining", offerId, 1);

    const refused = await checkout(shopper(), variant, plan, 2);
    expect(refused.status).toBe(422);
    expect(refused.json.errors).toEqual([{ localizedMessage: expect.stringMatching(/^Only 1 unit of .* can still be preordered\.$/) as string, target: "$.cart.lines[0].quantity" }]);

    // Cancelled on the platform: its webhook frees the 2 units, and the checkout takes 3 again.
    const platformId = legacyIdOf("Order", placed.json.order?.id);
    if (platformId === undefined) throw new Error("no order id");
    await emulatorOrderEvent(env, platformId, "cancel");
    await counterReads("SHOP", SHOP_ID, "remaining", offerId, 3);
    await serviceOrder(await checkout(shopper(), variant, plan, 3));
    await counterReads("SHOP", SHOP_ID, "remaining", offerId, 0);
    const soldOut = await checkout(shopper(), variant, plan, 1);
    expect(soldOut.json.errors?.map((e) => e.localizedMessage)).toEqual([expect.stringContaining("can no longer be preordered: none are left") as string]);
  });
});
