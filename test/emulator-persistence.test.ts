import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { syncOffer } from "../src/preorders/sync/run.ts";
import { type Emulator, type EmulatorOptions, startEmulator } from "../src/platform/emulator/index.ts";
import { emulatorOptionsFromEnv } from "../src/platform/emulator/main-config.ts";
import { getSellingPlanGroup } from "../src/platform/operations/selling-plans.ts";
import { type Json, createOffer, offerCall } from "./helpers/offers.ts";
import { mirrorVariants, offerSyncRow, startSyncEnv, waitSynced } from "./helpers/offer-sync.ts";
import { waitFor } from "./helpers/wait.ts";

/**
 * Restarting `npm start` must not corrupt selling plans: the embedded emulator keeps its state in
 * a snapshot file (ids included, never handed out twice), and an offer whose group the platform
 * lost gets it created again, with a note on its sync state.
 */

const SEED = { products: 4, variantsPerProduct: 2, locations: 2, markets: 1, collections: 1, customers: 2 };
const dirs: string[] = [];
const running: Emulator[] = [];

afterAll(async () => {
  for (const e of running) await e.close().catch(() => undefined);
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function stateFile(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "emulator-state-"));
  dirs.push(dir);
  return path.join(dir, "platform-emulator.json");
}

async function start(options: EmulatorOptions): Promise<Emulator> {
  const e = await startEmulator({ seed: SEED, ...options });
  running.push(e);
  return e;
}

async function stop(e: Emulator): Promise<void> {
  running.splice(running.indexOf(e), 1);
  await e.close();
}

async function gql<T>(e: Emulator, query: string, variables: Json = {}): Promise<T> {
  const response = await fetch(e.graphqlUrl, {
    method: "POST",
    headers: { "content-type": "application/json", "x-shopify-access-token": e.accessToken },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data as T;
}

const CREATE = `mutation C($input: SellingPlanGroupInput!, $resources: SellingPlanGroupResourceInput) {
  sellingPlanGroupCreate(input: $input, resources: $resources) {
    sellingPlanGroup { id sellingPlans(first: 5) { nodes { id } } } userErrors { message } } }`;
const DELETE = `mutation D($id: ID!) { sellingPlanGroupDelete(id: $id) { deletedSellingPlanGroupId userErrors { message } } }`;
const GROUP = `query G($id: ID!) { sellingPlanGroup(id: $id) { id name productVariantsCount { count } sellingPlans(first: 5) { nodes { id name } } } }`;

interface Created {
  groupId: string;
  planId: string;
}

async function createGroup(e: Emulator, name: string, variantIds: string[] = []): Promise<Created> {
  const plan = {
    name: "Pay in full",
    options: ["Pay in full"],
    category: "PRE_ORDER",
    billingPolicy: { fixed: { checkoutCharge: { type: "PERCENTAGE", value: { percentage: 100 } }, remainingBalanceChargeTrigger: "NO_REMAINING_BALANCE" } },
    deliveryPolicy: { fixed: { fulfillmentTrigger: "ASAP" } },
  };
  const data = await gql<{ sellingPlanGroupCreate: { sellingPlanGroup: { id: string; sellingPlans: { nodes: { id: string }[] } } | null; userErrors: unknown[] } }>(
    e,
    CREATE,
    { input: { name, merchantCode: name, options: ["Payment"], sellingPlansToCreate: [plan] }, resources: { productVariantIds: variantIds } },
  );
  const group = data.sellingPlanGroupCreate.sellingPlanGroup;
  if (!group) throw new Error(JSON.stringify(data.sellingPlanGroupCreate.userErrors));
  return { groupId: group.id, planId: group.sellingPlans.nodes[0]?.id ?? "" };
}

async function createOrder(e: Emulator, variantId: number): Promise<{ id: string; lineItemId: string }> {
  const response = await fetch(`${e.origin}/admin/orders`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ line_items: [{ variant_id: variantId, quantity: 1 }], email: "persist@example.com" }),
  });
  expect(response.status).toBe(201);
  const { order } = (await response.json()) as { order: { id: number | string; line_items: { id: number | string }[] } };
  return { id: String(order.id), lineItemId: String(order.line_items[0]?.id) };
}

const numeric = (gid: string): number => Number(gid.split("/").pop());

describe("emulator state across restarts", () => {
  it("keeps groups, orders and stock after a restart from the same file, and never hands an id out twice", async () => {
    const file = await stateFile();
    const first = await start({ stateFile: file });
    const variant = first.store.variants[0];
    if (!variant) throw new Error("no seeded variant");
    const kept = await createGroup(first, "Kept", [`gid://shopify/ProductVariant/${variant.id}`]);
    // The highest ids handed out belong to a group that is deleted before the restart: a counter
    // rebuilt from the ids still present would hand them out again.
    const dropped = await createGroup(first, "Dropped");
    await gql(first, DELETE, { id: dropped.groupId });
    const order = await createOrder(first, variant.id);
    const location = first.store.activeLocations()[0];
    if (!location) throw new Error("no active location");
    const stock = await fetch(`${first.origin}/admin/inventory`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ variant_id: variant.id, available: 777 }),
    });
    expect(stock.status).toBe(200);
    await stop(first);

    const second = await start({ stateFile: file });
    const group = await gql<{ sellingPlanGroup: { id: string; name: string; productVariantsCount: { count: number }; sellingPlans: { nodes: { id: string }[] } } | null }>(
      second,
      GROUP,
      { id: kept.groupId },
    );
    expect(group.sellingPlanGroup).toMatchObject({ id: kept.groupId, name: "Kept", productVariantsCount: { count: 1 } });
    expect(group.sellingPlanGroup?.sellingPlans.nodes.map((p) => p.id)).toEqual([kept.planId]);
    expect((await gql<{ sellingPlanGroup: unknown }>(second, GROUP, { id: dropped.groupId })).sellingPlanGroup).toBeNull();
    expect(second.store.order(Number(order.id))?.email).toBe("persist@example.com");
    expect(second.store.activeLocations()[0]?.levels?.available[0]).toBe(777);

    const fresh = await createGroup(second, "Fresh");
    expect(numeric(fresh.groupId)).toBeGreaterThan(numeric(dropped.groupId));
    expect(numeric(fresh.planId)).toBeGreaterThan(numeric(dropped.planId));
    const nextOrder = await createOrder(second, variant.id);
    expect(Number(nextOrder.id)).toBeGreaterThan(Number(order.id));
    expect(Number(nextOrder.lineItemId)).toBeGreaterThan(Number(order.lineItemId));
  });

  it("keeps metafields after a restart, and never hands a metafield id out twice", async () => {
    const file = await stateFile();
    const first = await start({ stateFile: file });
    const owner = `gid://shopify/ProductVariant/${first.store.variants[0]?.id}`;
    const SET = `mutation S($m: [MetafieldsSetInput!]!) { metafieldsSet(metafields: $m) { metafields { id } userErrors { message } } }`;
    const set = async (e: Emulator, key: string) =>
      (await gql<{ metafieldsSet: { metafields: { id: string }[] } }>(e, SET, { m: [{ ownerId: owner, namespace: "$app:preorder", key, type: "json", value: '{"kept":true}' }] })).metafieldsSet
        .metafields[0]?.id ?? "";
    const keptId = await set(first, "kept");
    await stop(first);

    const second = await start({ stateFile: file });
    const READ = `query R($id: ID!) { productVariant(id: $id) { metafield(namespace: "$app:preorder", key: "kept") { id value } } }`;
    const read = await gql<{ productVariant: { metafield: { id: string; value: string } | null } }>(second, READ, { id: owner });
    expect(read.productVariant.metafield).toEqual({ id: keptId, value: '{"kept":true}' });
    expect(numeric(await set(second, "fresh"))).toBeGreaterThan(numeric(keptId));
  });

  it("keeps fulfillment orders and their holds after a restart, and never hands their ids out twice", async () => {
    const file = await stateFile();
    const first = await start({ stateFile: file });
    const variantId = first.store.variants[0]?.id ?? 0;
    const order = await createOrder(first, variantId);
    const READ = `query R($id: ID!) { order(id: $id) { fulfillmentOrders(first: 5) { nodes { id status fulfillmentHolds { id reasonNotes } } } } }`;
    type Read = { order: { fulfillmentOrders: { nodes: { id: string; status: string; fulfillmentHolds: { id: string; reasonNotes: string | null }[] }[] } } };
    const HOLD = `mutation H($id: ID!) { fulfillmentOrderHold(id: $id, fulfillmentHold: { reason: INVENTORY_OUT_OF_STOCK, reasonNotes: "kept" }) {
      fulfillmentHold { id } userErrors { message } } }`;
    const fulfillmentOrderId = (await gql<Read>(first, READ, { id: `gid://shopify/Order/${order.id}` })).order.fulfillmentOrders.nodes[0]?.id ?? "";
    const hold = await gql<{ fulfillmentOrderHold: { fulfillmentHold: { id: string } } }>(first, HOLD, { id: fulfillmentOrderId });
    await stop(first);

    const second = await start({ stateFile: file });
    const read = await gql<Read>(second, READ, { id: `gid://shopify/Order/${order.id}` });
    expect(read.order.fulfillmentOrders.nodes).toEqual([
      { id: fulfillmentOrderId, status: "ON_HOLD", fulfillmentHolds: [{ id: hold.fulfillmentOrderHold.fulfillmentHold.id, reasonNotes: "kept" }] },
    ]);
    const next = await createOrder(second, variantId);
    const nextId = (await gql<Read>(second, READ, { id: `gid://shopify/Order/${next.id}` })).order.fulfillmentOrders.nodes[0]?.id ?? "";
    expect(numeric(nextId)).toBeGreaterThan(numeric(fulfillmentOrderId));
    const nextHold = await gql<{ fulfillmentOrderHold: { fulfillmentHold: { id: string } } }>(second, HOLD, { id: nextId });
    expect(numeric(nextHold.fulfillmentOrderHold.fulfillmentHold.id)).toBeGreaterThan(numeric(hold.fulfillmentOrderHold.fulfillmentHold.id));
  });

  it("writes a change to the file shortly after it, without waiting for the stop", async () => {
    const file = await stateFile();
    const e = await start({ stateFile: file, saveDelayMs: 10 });
    const created = await createGroup(e, "Saved early");
    // Polls the file (the save is debounced), then starts a second emulator from it while the first still runs.
    await waitFor("the snapshot to hold the new group", async () => ((await readFile(file, "utf8").catch(() => "")).includes("Saved early") ? true : undefined));
    const reader = await start({ stateFile: file });
    expect(reader.store.sellingPlanGroups.get(numeric(created.groupId))?.name).toBe("Saved early");
  });

  it("after a crash that lost the last save, hands out none of the ids given since that save", async () => {
    const file = await stateFile();
    const e = await start({ stateFile: file, saveDelayMs: 10 });
    await createGroup(e, "Saved");
    await waitFor("the snapshot to hold the group", async () => ((await readFile(file, "utf8").catch(() => "")).includes('"Saved"') ? true : undefined));
    const beforeCrash = await readFile(file, "utf8");
    const lost = await createGroup(e, "Lost in the crash");
    await stop(e);
    // What a SIGKILL within the save delay leaves: the file as it was before the last group.
    await writeFile(file, beforeCrash);
    const restarted = await start({ stateFile: file });
    expect(restarted.store.sellingPlanGroups.get(numeric(lost.groupId))).toBeUndefined();
    const next = await createGroup(restarted, "After the crash");
    expect(numeric(next.groupId)).toBeGreaterThan(numeric(lost.groupId));
    expect(numeric(next.planId)).toBeGreaterThan(numeric(lost.planId));
  });

  it("refuses to start from a file it cannot read rather than seeding over it (that would reuse its ids)", async () => {
    const file = await stateFile();
    await writeFile(file, '{"format":"something else"}');
    await expect(startEmulator({ seed: SEED, stateFile: file })).rejects.toThrow(/cannot be loaded \(move it away to start from a new seed\)/);
    expect(await readFile(file, "utf8")).toBe('{"format":"something else"}');
  });

  it("npm run emulator takes the same option from EMULATOR_STATE_FILE, and stays in memory without it", () => {
    expect(emulatorOptionsFromEnv({ EMULATOR_STATE_FILE: "/tmp/state.json" }).options.stateFile).toBe("/tmp/state.json");
    expect(emulatorOptionsFromEnv({}).options.stateFile).toBeUndefined();
  });

  it("without a state file the emulator stays in memory (the default for tests)", async () => {
    const e = await start({});
    const created = await createGroup(e, "Memory only");
    await stop(e);
    const again = await start({});
    expect(again.store.sellingPlanGroups.get(numeric(created.groupId))).toBeUndefined();
  });

  it("a new state file (first start after an in-memory emulator) hands out none of that emulator's ids", async () => {
    const memory = await start({});
    const before = [await createGroup(memory, "Before the file"), await createGroup(memory, "Before the file 2")];
    await stop(memory);
    const persisted = await start({ stateFile: await stateFile() });
    const after = await createGroup(persisted, "After the file");
    for (const earlier of before) {
      expect(numeric(after.groupId)).toBeGreaterThan(numeric(earlier.groupId));
      expect(numeric(after.planId)).toBeGreaterThan(numeric(earlier.planId));
    }
  });
});

async function adminPost(e: Emulator, route: string, body: Json): Promise<void> {
  const response = await fetch(`${e.origin}${route}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
}

const DRAFT_CREATE = `mutation C($input: DraftOrderInput!) { draftOrderCreate(input: $input) { draftOrder { id name } userErrors { field message } } }`;
const DRAFT_COMPLETE = `mutation K($id: ID!) { draftOrderComplete(id: $id) { draftOrder { status order { id } } userErrors { field message } } }`;
const DRAFT = `query D($id: ID!) { draftOrder(id: $id) { id name status tags poNumber customAttributes { key value } totalPrice order { id } } }`;
type Draft = { id: string; name: string; status: string; tags: string[]; poNumber: string | null; customAttributes: { key: string; value: string | null }[]; totalPrice: string; order: { id: string } | null };

async function createDraft(e: Emulator, input: Json): Promise<{ id: string; name: string }> {
  const data = await gql<{ draftOrderCreate: { draftOrder: { id: string; name: string } | null; userErrors: unknown[] } }>(e, DRAFT_CREATE, { input });
  if (!data.draftOrderCreate.draftOrder) throw new Error(JSON.stringify(data.draftOrderCreate.userErrors));
  return data.draftOrderCreate.draftOrder;
}

describe("emulator state beside the store across restarts (state file version 2)", () => {
  it("keeps an open draft order (lines with their price override, tags, PO number, attributes), which can still be completed, and never hands its id out again", async () => {
    const file = await stateFile();
    const first = await start({ stateFile: file });
    const [a, b] = first.store.variants;
    if (!a || !b) throw new Error("no seeded variants");
    const input = {
      email: "draft@example.com",
      lineItems: [
        { variantId: `gid://shopify/ProductVariant/${a.id}`, quantity: 2, priceOverride: { amount: "3.25", currencyCode: "USD" } },
        { variantId: `gid://shopify/ProductVariant/${b.id}`, quantity: 1 },
      ],
      tags: ["preorder-split", "kept"],
      poNumber: "PO-77",
      customAttributes: [{ key: "_preorder_split_of", value: "gid://shopify/Order/1" }],
    };
    const draft = await createDraft(first, input);
    const before = (await gql<{ draftOrder: Draft }>(first, DRAFT, { id: draft.id })).draftOrder;
    await stop(first);

    const second = await start({ stateFile: file });
    const after = (await gql<{ draftOrder: Draft | null }>(second, DRAFT, { id: draft.id })).draftOrder;
    expect(after).toEqual(before);
    expect(after).toMatchObject({ status: "OPEN", tags: ["preorder-split", "kept"], poNumber: "PO-77", customAttributes: input.customAttributes, order: null });
    const listed = await gql<{ draftOrders: { nodes: { id: string }[] } }>(second, `{ draftOrders(first: 5, query: "status:open tag:kept") { nodes { id } } }`);
    expect(listed.draftOrders.nodes.map((d) => d.id)).toEqual([draft.id]);

    const completed = await gql<{ draftOrderComplete: { draftOrder: { status: string; order: { id: string } } | null; userErrors: unknown[] } }>(second, DRAFT_COMPLETE, { id: draft.id });
    expect(completed.draftOrderComplete.userErrors).toEqual([]);
    expect(completed.draftOrderComplete.draftOrder?.status).toBe("COMPLETED");
    const order = second.store.order(numeric(completed.draftOrderComplete.draftOrder?.order.id ?? ""));
    expect(order?.lineItems.map((l) => ({ variantId: l.variantId, quantity: l.quantity, priceCents: l.priceCents }))).toEqual([
      { variantId: a.id, quantity: 2, priceCents: 325 },
      { variantId: b.id, quantity: 1, priceCents: b.priceCents },
    ]);
    expect(order).toMatchObject({ email: "draft@example.com", poNumber: "PO-77", customAttributes: input.customAttributes });
    expect(order?.tags).toEqual(expect.arrayContaining(["preorder-split", "kept"]));

    const fresh = await createDraft(second, { lineItems: [{ variantId: `gid://shopify/ProductVariant/${a.id}`, quantity: 1 }] });
    expect(numeric(fresh.id)).toBeGreaterThan(numeric(draft.id));
    expect(fresh.name).not.toBe(draft.name);
  });

  it("after a crash that lost the last save, hands out none of the draft order ids given since that save", async () => {
    const file = await stateFile();
    const e = await start({ stateFile: file, saveDelayMs: 10 });
    const variantId = `gid://shopify/ProductVariant/${e.store.variants[0]?.id}`;
    await createDraft(e, { lineItems: [{ variantId, quantity: 1 }], poNumber: "PO-saved" });
    await waitFor("the snapshot to hold the draft", async () => ((await readFile(file, "utf8").catch(() => "")).includes("PO-saved") ? true : undefined));
    const beforeCrash = await readFile(file, "utf8");
    const lost = await createDraft(e, { lineItems: [{ variantId, quantity: 1 }], poNumber: "PO-lost" });
    await stop(e);
    await writeFile(file, beforeCrash);
    const restarted = await start({ stateFile: file });
    expect((await gql<{ draftOrder: Draft | null }>(restarted, DRAFT, { id: lost.id })).draftOrder).toBeNull();
    const next = await createDraft(restarted, { lineItems: [{ variantId, quantity: 1 }] });
    expect(numeric(next.id)).toBeGreaterThan(numeric(lost.id));
  });

  it("keeps an open order edit, which can still be committed after the restart", async () => {
    const file = await stateFile();
    const first = await start({ stateFile: file });
    const variant = first.store.variants[0];
    if (!variant) throw new Error("no seeded variant");
    const response = await fetch(`${first.origin}/admin/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ line_items: [{ variant_id: variant.id, quantity: 3 }] }),
    });
    const { order } = (await response.json()) as { order: { id: number | string; line_items: { id: number | string }[] } };
    const begun = await gql<{ orderEditBegin: { calculatedOrder: { id: string } } }>(first, `mutation B($id: ID!) { orderEditBegin(id: $id) { calculatedOrder { id } userErrors { message } } }`, {
      id: `gid://shopify/Order/${order.id}`,
    });
    const editId = begun.orderEditBegin.calculatedOrder.id;
    const staged = await gql<{ orderEditSetQuantity: { userErrors: unknown[] } }>(
      first,
      `mutation S($id: ID!, $line: ID!) { orderEditSetQuantity(id: $id, lineItemId: $line, quantity: 1) { userErrors { message } } }`,
      { id: editId, line: `gid://shopify/CalculatedLineItem/${order.line_items[0]?.id}` },
    );
    expect(staged.orderEditSetQuantity.userErrors).toEqual([]);
    await stop(first);

    const second = await start({ stateFile: file });
    const committed = await gql<{ orderEditCommit: { userErrors: unknown[] } }>(second, `mutation C($id: ID!) { orderEditCommit(id: $id) { order { id } userErrors { message } } }`, { id: editId });
    expect(committed.orderEditCommit.userErrors).toEqual([]);
    expect(second.store.order(Number(order.id))?.lineItems[0]?.currentQuantity).toBe(1);
    const again = await gql<{ orderEditBegin: { calculatedOrder: { id: string } } }>(second, `mutation B($id: ID!) { orderEditBegin(id: $id) { calculatedOrder { id } userErrors { message } } }`, {
      id: `gid://shopify/Order/${order.id}`,
    });
    expect(numeric(again.orderEditBegin.calculatedOrder.id)).toBeGreaterThan(numeric(editId));
  });

  it("keeps the app's granted access scopes, the Flow triggers it sent and product translations", async () => {
    const file = await stateFile();
    const first = await start({ stateFile: file });
    const product = first.store.products[0];
    if (!product) throw new Error("no seeded product");
    await adminPost(first, "/admin/access_scopes", { grant: ["read_translations"], revoke: ["read_markets"] });
    const flow = await gql<{ flowTriggerReceive: { userErrors: unknown[] } }>(
      first,
      `mutation F($payload: JSON) { flowTriggerReceive(handle: "preorder-ready", payload: $payload) { userErrors { message } } }`,
      { payload: { order_id: 42, note: "kept" } },
    );
    expect(flow.flowTriggerReceive.userErrors).toEqual([]);
    await adminPost(first, `/admin/products/${product.id}/translations`, { locale: "de", values: { title: "Vorbestellung" } });
    await adminPost(first, `/admin/products/${product.id}/translations`, { locale: "fr", values: { title: "Précommande" } });
    const scopes = first.app.scopes();
    const triggers = [...first.app.flowTriggers];
    await stop(first);

    const second = await start({ stateFile: file });
    expect(second.app.scopes()).toEqual(scopes);
    expect(second.app.hasScope("read_translations")).toBe(true);
    expect(second.app.hasScope("read_markets")).toBe(false);
    const installation = await gql<{ currentAppInstallation: { accessScopes: { handle: string }[] } }>(second, `{ currentAppInstallation { accessScopes { handle } } }`);
    expect(installation.currentAppInstallation.accessScopes.map((s) => s.handle)).toEqual(scopes);
    expect(second.app.flowTriggers).toEqual(triggers);
    expect(triggers).toMatchObject([{ handle: "preorder-ready", payload: { order_id: 42, note: "kept" } }]);
    const read = await gql<{ translatableResource: { translations: { key: string; value: string }[] } | null }>(
      second,
      `query T($id: ID!) { translatableResource(resourceId: $id) { translations(locale: "de") { key value } } }`,
      { id: `gid://shopify/Product/${product.id}` },
    );
    expect(read.translatableResource?.translations).toEqual([{ key: "title", value: "Vorbestellung" }]);
    expect(second.app.translations(`gid://shopify/Product/${product.id}`, "fr")).toEqual([{ key: "title", value: "Précommande" }]);
  });

  it("loads a state file of the older format (version 1, without what lives beside the store), then saves it in the new one", async () => {
    const file = await stateFile();
    const first = await start({ stateFile: file });
    const variant = first.store.variants[0];
    if (!variant) throw new Error("no seeded variant");
    const order = await createOrder(first, variant.id);
    await stop(first);
    // What the emulator wrote before version 2: the same store, no drafts, edits or installation.
    const saved = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    const older = Object.fromEntries(Object.entries(saved).filter(([key]) => !["draftOrders", "orderEdits", "app"].includes(key)));
    await writeFile(file, JSON.stringify({ ...older, version: 1 }));

    const second = await start({ stateFile: file, accessScopes: ["read_products", "read_orders", "write_orders"] });
    expect(second.store.order(Number(order.id))?.email).toBe("persist@example.com");
    expect(second.app.scopes()).toEqual(["read_orders", "read_products", "write_orders"]);
    expect(second.app.flowTriggers).toEqual([]);
    const draft = await createDraft(second, { lineItems: [{ variantId: `gid://shopify/ProductVariant/${variant.id}`, quantity: 1 }], poNumber: "PO-after-upgrade" });
    second.app.grant(["read_translations"]);
    await stop(second);

    const rewritten = JSON.parse(await readFile(file, "utf8")) as { version: number };
    expect(rewritten.version).toBe(2);
    const third = await start({ stateFile: file });
    expect((await gql<{ draftOrder: Draft | null }>(third, DRAFT, { id: draft.id })).draftOrder).toMatchObject({ status: "OPEN", poNumber: "PO-after-upgrade" });
    expect(third.app.scopes()).toEqual(["read_orders", "read_products", "read_translations", "write_orders"]);
  });
});

describe("offer sync when the platform lost the offer's selling plan group", () => {
  it("creates the group again, stores its id, logs a warning and notes it on the offer's sync state", async () => {
    const env = await startSyncEnv({ products: 4, variantsPerProduct: 2, locations: 2, markets: 1, collections: 1 });
    try {
      const legacy = (await mirrorVariants(env)).map((v) => v.legacy_id);
      await env.startWorker();
      const offer = await createOffer(env.app, env.key, { products: { variant_ids: legacy.slice(0, 2) } });
      // A draft stays off the platform: enabled, as a merchant's live offer is.
      expect((await offerCall(env.app, env.key, "POST", offer.id, "/enable")).status).toBe(202);
      const lostId = (await waitSynced(env, offer.id)).platform_selling_plan_group_id ?? "";
      await env.stopWorker();

      // The platform loses the group behind the app's back (a restarted emulator, a store that deleted it).
      env.emulator.store.sellingPlanGroups.delete(numeric(lostId));
      expect((await offerCall(env.app, env.key, "PATCH", offer.id, "", { name: "After the loss" })).status).toBe(202);

      const lines: Json[] = [];
      const log = pino({ level: "warn" }, { write: (line: string) => void lines.push(JSON.parse(line) as Json) });
      const outcome = await syncOffer({ pool: env.app.pool, platform: env.platform, log }, env.shopId, offer.id);
      expect(outcome).toMatchObject({ outcome: "created", current: true });

      const row = await offerSyncRow(env, offer.id);
      expect(row.sync_status).toBe("synced");
      expect(row.platform_selling_plan_group_id).not.toBe(lostId);
      const client = await env.platform.clientFor(env.app.pool, env.shopId);
      const recreated = await getSellingPlanGroup(client, row.platform_selling_plan_group_id ?? "");
      expect(recreated).toMatchObject({ name: "After the loss", productVariantsCount: 2 });
      expect(recreated?.sellingPlans.nodes[0]?.id).toBe(row.platform_selling_plan_id);

      expect(lines).toContainEqual(
        expect.objectContaining({ level: 40, offer_id: offer.id, missing_group_id: lostId, group_id: row.platform_selling_plan_group_id }),
      );
      const sync = ((await offerCall(env.app, env.key, "GET", offer.id)).body as { sync: Json }).sync;
      expect(sync).toMatchObject({ status: "synced", last_error: null, platform_selling_plan_group_id: row.platform_selling_plan_group_id });
      expect(sync.last_event).toBe(`selling plan group ${lostId} was missing on the platform; re-created as ${row.platform_selling_plan_group_id}`);
    } finally {
      await env.close();
    }
  });
});
