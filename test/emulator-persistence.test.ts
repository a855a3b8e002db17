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
    headers: { "content-type": "application/json", "x-platform-access-token": e.accessToken },
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
const GROUP = `query G($id: ID!) { sellingPlanGroup(id: $id) { id name productVariantsCount sellingPlans(first: 5) { nodes { id name } } } }`;

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
    const kept = await createGroup(first, "Kept", [`gid://platform/ProductVariant/${variant.id}`]);
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
    const group = await gql<{ sellingPlanGroup: { id: string; name: string; productVariantsCount: number; sellingPlans: { nodes: { id: string }[] } } | null }>(
      second,
      GROUP,
      { id: kept.groupId },
    );
    expect(group.sellingPlanGroup).toMatchObject({ id: kept.groupId, name: "Kept", productVariantsCount: 1 });
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
    const owner = `gid://platform/ProductVariant/${first.store.variants[0]?.id}`;
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
    const fulfillmentOrderId = (await gql<Read>(first, READ, { id: `gid://platform/Order/${order.id}` })).order.fulfillmentOrders.nodes[0]?.id ?? "";
    const hold = await gql<{ fulfillmentOrderHold: { fulfillmentHold: { id: string } } }>(first, HOLD, { id: fulfillmentOrderId });
    await stop(first);

    const second = await start({ stateFile: file });
    const read = await gql<Read>(second, READ, { id: `gid://platform/Order/${order.id}` });
    expect(read.order.fulfillmentOrders.nodes).toEqual([
      { id: fulfillmentOrderId, status: "ON_HOLD", fulfillmentHolds: [{ id: hold.fulfillmentOrderHold.fulfillmentHold.id, reasonNotes: "kept" }] },
    ]);
    const next = await createOrder(second, variantId);
    const nextId = (await gql<Read>(second, READ, { id: `gid://platform/Order/${next.id}` })).order.fulfillmentOrders.nodes[0]?.id ?? "";
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
