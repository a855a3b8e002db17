import { describe, expect, it } from "vitest";
import { sendTask } from "../src/back_in_stock/alerts/deps.ts";
import { enqueueCatalogSync } from "../src/catalog/schedule.ts";
import { syncCatalog } from "../src/catalog/sync.ts";
import { ShopUninstalled, UNINSTALLED_SKIP } from "../src/platform/installation.ts";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { queueJobCount } from "./helpers/queue.ts";
import { waitFor } from "./helpers/wait.ts";
import { webhooksProcessed } from "./helpers/webhook-delivery.ts";

// app/uninstalled as the emulator sends it when the merchant uninstalls the app, and the
// reinstall after it (decision 0222).

const env = useTestEnv({
  smtp: true,
  dataDir: true,
  emulator: { seed: { products: 2, variantsPerProduct: 1, customers: 2 }, webhooks: true },
  connect: true,
  worker: { pollInterval: 50 },
});

async function emulatorAdmin(pathname: string, body: unknown = {}): Promise<unknown> {
  const response = await fetch(`${env.emulator.origin}${pathname}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(response.ok).toBe(true);
  return response.json();
}

async function settled(): Promise<void> {
  await env.emulator.webhooksSettled();
  await webhooksProcessed(env.pool, env.shopId);
}

async function adminRequest(token: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(env.emulator.graphqlUrl, {
    method: "POST",
    headers: { "content-type": "application/json", "x-shopify-access-token": token },
    body: JSON.stringify({ query: "{ shop { name } }" }),
  });
  return { status: response.status, body: await response.json() };
}

async function finishedJob(jobId: string): Promise<{ status: string; result: unknown }> {
  return waitFor(`job ${jobId} finished`, async () => {
    const { rows } = await env.pool.query<{ status: string; result: unknown }>("select status, result from jobs where id = $1 and status in ('completed', 'failed')", [jobId]);
    return rows[0];
  });
}

const emailsTo = (address: string) => env.sink.messages.filter((m) => m.to === address);

describe("app/uninstalled and the reinstall", () => {
  it("drops the token, skips the shop's jobs, sends nothing, keeps the API answering; a reinstall resyncs the catalog and the next restock alerts the waiting signups", async () => {
    const { pool, shopId, key } = env;
    const store = env.emulator.store;
    const variant = store.variants[0];
    if (!variant) throw new Error("no variant");
    const index = store.variantIndex(variant);
    for (const location of store.activeLocations()) store.setAvailable(index, location, 0);
    await syncCatalog({ pool, client: await env.platform.clientFor(pool, shopId), shopId, mode: "full", log: env.log });
    const signup = async (email: string) => {
      const answer = await invoke(env.app, "POST", "/back_in_stock/signups", { key, body: { variant_id: variant.id, channel: "email", email } });
      expect(answer.status).toBe(202);
      return (answer.body as { id: string }).id;
    };
    const manual = await signup("manual@example.com");
    const waiting = await signup("waiting@example.com");

    // The merchant uninstalls: the store revokes the token and sends app/uninstalled.
    expect(await emulatorAdmin("/admin/app/uninstall")).toMatchObject({ installed: false, webhook_id: expect.any(String) as unknown });
    await settled();
    expect(await adminRequest(env.emulator.accessToken)).toEqual({ status: 401, body: { errors: "[API] Invalid API key or access token (unrecognized login or wrong password)" } });
    const { rows: shops } = await pool.query("select platform_access_token is null as token_dropped, platform_uninstalled_at is not null as uninstalled from shops where id = $1", [shopId]);
    expect(shops).toEqual([{ token_dropped: true, uninstalled: true }]);
    // The runtime that had this shop's client cached (the fixture's, shared with the worker) no longer hands it out.
    await expect(env.platform.clientFor(pool, shopId)).rejects.toBeInstanceOf(ShopUninstalled);

    // The API keeps answering: the merchant may reinstall.
    const list = await invoke(env.app, "GET", "/back_in_stock/signups", { key });
    expect(list.status).toBe(200);
    expect((list.body as { signups: { id: string; status: string }[] }).signups.map((s) => [s.id, s.status]).sort()).toEqual([[manual, "waiting"], [waiting, "waiting"]].sort());

    // A job that needs the store ends skipped, once: completed with the reason, not failed nor retried.
    const sync = await enqueueCatalogSync(pool, shopId, "incremental");
    if (!sync) throw new Error("no catalog sync queued");
    expect(await finishedJob(sync.job_id)).toEqual({ status: "completed", result: UNINSTALLED_SKIP });
    await waitFor("the sync's queue job gone", async () => ((await queueJobCount(pool, sync.job_id)) === 0 ? true : undefined));

    // Nothing is sent for it: a notify the merchant asks for stays pending, unsent.
    const notified = await invoke(env.app, "POST", `/back_in_stock/signups/${manual}/notify`, { key });
    expect(notified.status).toBe(202);
    const messageId = (notified.body as { message_id: string }).message_id;
    await waitFor("the send job done", async () => {
      const { rows } = await pool.query("select 1 from graphile_worker.jobs where task_identifier = $1", [sendTask.name]);
      return rows.length === 0 ? true : undefined;
    });
    const { rows: ledger } = await pool.query("select status from bis_ledger where id = $1", [messageId]);
    expect(ledger).toEqual([{ status: "pending" }]);
    expect(emailsTo("manual@example.com")).toEqual([]);
    // While uninstalled the store sends no catalog webhooks: a restock there reaches nobody.
    await emulatorAdmin("/admin/inventory", { variant_id: variant.id, available: 1 });
    await settled();
    expect(env.sink.messages).toEqual([]);

    // The merchant reinstalls: a new connection clears the mark; the first sync is a full one.
    await emulatorAdmin("/admin/app/install");
    await env.platform.connect(pool, shopId, { domain: env.emulator.shopDomain, graphqlUrl: env.emulator.graphqlUrl, accessToken: env.emulator.accessToken });
    const { rows: again } = await pool.query("select platform_uninstalled_at is null as installed from shops where id = $1", [shopId]);
    expect(again).toEqual([{ installed: true }]);
    const resync = await enqueueCatalogSync(pool, shopId, "incremental");
    if (!resync) throw new Error("no catalog sync queued");
    expect(await finishedJob(resync.job_id)).toMatchObject({ status: "completed", result: { mode: "full" } });
    const { rows: mirrored } = await pool.query<{ available: number }>("select sum(available)::int as available from inventory_levels where shop_id = $1 and inventory_item_id = $2", [
      shopId,
      `gid://shopify/InventoryItem/${store.inventoryItemId(index)}`,
    ]);
    expect(mirrored[0]?.available).toBe(1);

    // Sold out again, then restocked: the waiting signup gets its alert.
    await emulatorAdmin("/admin/inventory", { variant_id: variant.id, available: 0 });
    await settled();
    await emulatorAdmin("/admin/inventory", { variant_id: variant.id, available: 5 });
    await settled();
    await waitFor("the waiting signup's alert", async () => (emailsTo("waiting@example.com").length === 1 ? true : undefined));
  });

  it("an app/uninstalled triggered before the current connection (a retry that outlived a reinstall) leaves the token", async () => {
    const { pool, shopId } = env;
    await env.platform.connect(pool, shopId, { domain: env.emulator.shopDomain, graphqlUrl: env.emulator.graphqlUrl, accessToken: env.emulator.accessToken });
    const { signedDelivery, postDelivery } = await import("./helpers/webhook-delivery.ts");
    const late = signedDelivery("app/uninstalled", { id: 1, myshopify_domain: env.emulator.shopDomain, late: true }, env.emulator.shopDomain, {
      "x-shopify-triggered-at": new Date(Date.now() - 60_000).toISOString(),
    });
    expect((await postDelivery(env.app.origin, late)).status).toBe(200);
    await webhooksProcessed(pool, shopId);
    const { rows } = await pool.query("select platform_access_token is not null as token, platform_uninstalled_at is null as installed from shops where id = $1", [shopId]);
    expect(rows).toEqual([{ token: true, installed: true }]);
  });
});
