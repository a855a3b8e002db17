import { beforeAll, describe, expect, it } from "vitest";
import type { JobRow } from "../src/core/jobs.ts";
import { appProxySignature } from "../src/http/storefront.ts";
import { invoke } from "./helpers/app.ts";
import { type SeedShop, newShop, seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { TEST_WEBHOOK_SECRET } from "./helpers/platform.ts";
import { waitFor } from "./helpers/wait.ts";
import { deliverWebhook, webhooksProcessed } from "./helpers/webhook-delivery.ts";

/**
 * A back-in-stock signup's quantity (units wanted) and market (decision 0246): validated on the
 * API and the storefront's app proxy, stored, read and filtered; quantity summed as units_wanted
 * in the demand reads (and demand_value = price x units_wanted); a signup with a market alerted
 * only by stock at a location of that market.
 */
const env = useTestEnv({ shop: false, smtp: true, dataDir: true, worker: { poolSize: 12, pollInterval: 50 } });

const MARKET_EU = "gid://shopify/Market/1000002";
const MARKET_NO_LOCATIONS = "gid://shopify/Market/1000003";
const LOCATION_1 = "gid://shopify/Location/1";
const LOCATION_2 = "gid://shopify/Location/2";

let shop: SeedShop;

async function addMarkets(target: SeedShop): Promise<void> {
  await env.app.pool.query(
    `insert into markets (shop_id, id, name, active, is_primary, countries, location_ids) values
       ($1, 'gid://shopify/Market/1000001', 'United States', true, true, '{US}', $2::text[]),
       ($1, $3, 'Europe', true, false, '{DE,FR}', $4::text[]),
       ($1, $5, 'Canada', true, false, '{CA}', '{}')`,
    [target.shopId, [LOCATION_1, LOCATION_2], MARKET_EU, [LOCATION_2], MARKET_NO_LOCATIONS],
  );
}

beforeAll(async () => {
  shop = await newShop(env.app, "Quantity Market Shop");
  await addMarkets(shop);
  await seedVariants(env.app.pool, shop.shopId, [
    { n: 1101, product: 110, price: "10.00", available: 0, productTitle: "Field Jacket", title: "S" },
    { n: 1102, product: 110, price: "25.00", available: 0, productTitle: "Field Jacket", title: "M" },
  ]);
});

interface Signup {
  id: string;
  email: string | null;
  quantity: number;
  market_id: string | null;
}

async function signup(body: Record<string, unknown>, target: SeedShop = shop) {
  return invoke(env.app, "POST", "/back_in_stock/signups", { key: target.key, body });
}

async function created(body: Record<string, unknown>, target: SeedShop = shop): Promise<Signup> {
  const answer = await signup(body, target);
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return answer.body as Signup;
}

function proxyQuery(domain: string): string {
  const query = new URLSearchParams({ shop: domain, logged_in_customer_id: "", path_prefix: "/apps/notify", timestamp: String(Math.floor(Date.now() / 1000)) });
  query.set("signature", appProxySignature(TEST_WEBHOOK_SECRET, query));
  return query.toString();
}

async function proxyPost(domain: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${env.app.origin}/storefront/back_in_stock/signups?${proxyQuery(domain)}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.31" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function stored(shopId: string, contact: string): Promise<{ quantity: number; market_id: string | null } | undefined> {
  const { rows } = await env.app.pool.query<{ quantity: number; market_id: string | null }>("select quantity, market_id from bis_signups where shop_id = $1 and contact = $2", [
    shopId,
    contact,
  ]);
  return rows[0];
}

describe("quantity and market_id on a signup", () => {
  it("are stored and answered: quantity defaults to 1, market_id to null; a numeric market id is stored as its gid", async () => {
    const plain = await created({ variant_id: 1101, channel: "email", email: "plain@example.com" });
    expect(plain).toMatchObject({ quantity: 1, market_id: null });
    const both = await created({ variant_id: 1101, channel: "email", email: "both@example.com", quantity: 4, market_id: 1000002 });
    expect(both).toMatchObject({ quantity: 4, market_id: MARKET_EU });
    expect(await stored(shop.shopId, "both@example.com")).toEqual({ quantity: 4, market_id: MARKET_EU });
    const explicitNull = await created({ variant_id: 1101, channel: "email", email: "null-market@example.com", market_id: null, quantity: 10_000 });
    expect(explicitNull).toMatchObject({ quantity: 10_000, market_id: null });

    const one = await invoke(env.app, "GET", `/back_in_stock/signups/${both.id}`, { key: shop.key });
    expect(one.body).toMatchObject({ id: both.id, quantity: 4, market_id: MARKET_EU });
    const listed = await invoke(env.app, "GET", "/back_in_stock/signups?variant_id=1101", { key: shop.key });
    const signups = (listed.body as { signups: Signup[] }).signups;
    expect(signups.find((s) => s.id === both.id)).toMatchObject({ quantity: 4, market_id: MARKET_EU });
    expect(signups.find((s) => s.id === plain.id)).toMatchObject({ quantity: 1, market_id: null });
  });

  it("a repeat signup replaces the quantity and the market when given, keeps them when not, and null clears the market", async () => {
    const first = await created({ variant_id: 1101, channel: "email", email: "repeat@example.com", quantity: 2, market_id: MARKET_EU });
    const kept = await created({ variant_id: 1101, channel: "email", email: "repeat@example.com" });
    expect(kept).toMatchObject({ id: first.id, quantity: 2, market_id: MARKET_EU });
    const changed = await created({ variant_id: 1101, channel: "email", email: "repeat@example.com", quantity: 5, market_id: null });
    expect(changed).toMatchObject({ id: first.id, quantity: 5, market_id: null });
  });

  it("422 for a quantity that is not a whole number from 1 to 10000", async () => {
    const body = { variant_id: 1101, channel: "email", email: "bad-quantity@example.com" };
    expect(await signup({ ...body, quantity: 0 })).toMatchObject({ status: 422, body: { errors: ["quantity must be at least 1"] } });
    expect(await signup({ ...body, quantity: -3 })).toMatchObject({ status: 422, body: { errors: ["quantity must be at least 1"] } });
    expect(await signup({ ...body, quantity: 10_001 })).toMatchObject({ status: 422, body: { errors: ["quantity must be at most 10000"] } });
    expect(await signup({ ...body, quantity: 1.5 })).toMatchObject({ status: 422, body: { errors: ["quantity must be an integer"] } });
    expect(await signup({ ...body, quantity: "2" })).toMatchObject({ status: 422, body: { errors: ["quantity must be an integer"] } });
    expect(await signup({ ...body, quantity: null })).toMatchObject({ status: 422, body: { errors: ["quantity must be an integer"] } });
    expect(await stored(shop.shopId, "bad-quantity@example.com")).toBeUndefined();
  });

  it("422 for a market that is not one of this shop's, or not a market id at all", async () => {
    const other = await newShop(env.app, "Other Market Shop");
    await env.app.pool.query("insert into markets (shop_id, id, name) values ($1, 'gid://shopify/Market/7777', 'Elsewhere')", [other.shopId]);
    const body = { variant_id: 1101, channel: "email", email: "bad-market@example.com" };
    expect(await signup({ ...body, market_id: 424242 })).toMatchObject({ status: 422, body: { errors: ["market_id must be a market of this shop"] } });
    expect(await signup({ ...body, market_id: "gid://shopify/Market/7777" })).toMatchObject({ status: 422, body: { errors: ["market_id must be a market of this shop"] } });
    expect(await signup({ ...body, market_id: "Europe" })).toMatchObject({
      status: 422,
      body: { errors: ["market_id must be a numeric id or a gid://shopify/Market/<id>"] },
    });
    expect(await stored(shop.shopId, "bad-market@example.com")).toBeUndefined();
  });

  it("the storefront's app proxy takes both fields, with the same 422s but for a market the mirror does not know: the shopper is signed up without one", async () => {
    const accepted = await proxyPost(shop.domain, { variant_id: 1102, channel: "email", email: "shopper@example.com", quantity: 3, market_id: String(1000002) });
    expect(accepted).toEqual({ status: 202, body: { status: "waiting" } });
    expect(await stored(shop.shopId, "shopper@example.com")).toEqual({ quantity: 3, market_id: MARKET_EU });
    expect(await proxyPost(shop.domain, { variant_id: 1102, channel: "email", email: "shopper2@example.com", quantity: 0 })).toEqual({
      status: 422,
      body: { errors: ["quantity must be at least 1"] },
    });
    expect(await proxyPost(shop.domain, { variant_id: 1102, channel: "email", email: "shopper2@example.com", market_id: "market" })).toEqual({
      status: 422,
      body: { errors: ["market_id must be a numeric id or a gid://shopify/Market/<id>"] },
    });
    expect(await stored(shop.shopId, "shopper2@example.com")).toBeUndefined();
    // The page's market, added on the platform since the last catalog sync: the shopper cannot change it.
    expect(await proxyPost(shop.domain, { variant_id: 1102, channel: "email", email: "shopper2@example.com", market_id: "gid://shopify/Market/99" })).toEqual({ status: 202, body: { status: "waiting" } });
    expect(await stored(shop.shopId, "shopper2@example.com")).toEqual({ quantity: 1, market_id: null });
  });

  it("GET /back_in_stock/signups filters by market_id (numeric id or gid)", async () => {
    const eu = await created({ variant_id: 1102, channel: "email", email: "eu-filter@example.com", market_id: MARKET_EU });
    const ca = await created({ variant_id: 1102, channel: "email", email: "ca-filter@example.com", market_id: MARKET_NO_LOCATIONS });
    const ids = async (query: string) =>
      ((await invoke(env.app, "GET", `/back_in_stock/signups?${query}`, { key: shop.key })).body as { signups: Signup[] }).signups.map((s) => s.id);
    const inEu = await ids("market_id=1000002&variant_id=1102");
    expect(inEu).toContain(eu.id);
    expect(inEu).not.toContain(ca.id);
    expect(await ids(`market_id=${encodeURIComponent(MARKET_NO_LOCATIONS)}`)).toEqual([ca.id]);
    expect((await invoke(env.app, "GET", "/back_in_stock/signups?market_id=abc", { key: shop.key })).status).toBe(422);
  });
});

describe("quantity's effect: units wanted in the demand reads", () => {
  let demand: SeedShop;

  beforeAll(async () => {
    demand = await newShop(env.app, "Units Shop");
    await seedVariants(env.app.pool, demand.shopId, [
      { n: 1201, product: 120, price: "10.00", available: 0, productTitle: "Canvas Tote", title: "Default Title" },
      { n: 1202, product: 120, price: "4.00", available: 0, productTitle: "Canvas Tote", title: "Mini" },
    ]);
    // 1201: two signups wanting 3 and 2 (5 units); 1202: three signups of one unit each (3 units).
    await created({ variant_id: 1201, channel: "email", email: "t1@example.com", quantity: 3 }, demand);
    await created({ variant_id: 1201, channel: "email", email: "t2@example.com", quantity: 2 }, demand);
    for (const n of [1, 2, 3]) await created({ variant_id: 1202, channel: "email", email: `m${n}@example.com` }, demand);
  });

  it("GET /back_in_stock/products and /products/{id}: units_wanted per product and variant", async () => {
    const product = await invoke(env.app, "GET", "/back_in_stock/products/120", { key: demand.key });
    expect(product.status).toBe(200);
    const body = product.body as { waiting: number; units_wanted: number; variants: { id: string; waiting: number; units_wanted: number }[] };
    expect(body).toMatchObject({ waiting: 5, units_wanted: 8 });
    expect(body.variants.find((v) => v.id === variantGid(1201))).toMatchObject({ waiting: 2, units_wanted: 5 });
    expect(body.variants.find((v) => v.id === variantGid(1202))).toMatchObject({ waiting: 3, units_wanted: 3 });
    const listed = await invoke(env.app, "GET", "/back_in_stock/products", { key: demand.key });
    expect((listed.body as { products: unknown[] }).products).toEqual([expect.objectContaining({ id: "gid://shopify/Product/120", units_wanted: 8 })]);
  });

  it("the products_in_demand report: units_wanted, and demand_value = price x units_wanted", async () => {
    const answer = await invoke(env.app, "GET", "/back_in_stock/reports/products_in_demand", { key: demand.key });
    expect(answer.status).toBe(200);
    const variants = (answer.body as { variants: { variant_id: string; waiting: number; units_wanted: number; demand_value: number }[] }).variants;
    expect(variants.find((v) => v.variant_id === variantGid(1201))).toMatchObject({ waiting: 2, units_wanted: 5, demand_value: 50 });
    expect(variants.find((v) => v.variant_id === variantGid(1202))).toMatchObject({ waiting: 3, units_wanted: 3, demand_value: 12 });
  });

  it("the products_in_demand CSV export has the units_wanted column", async () => {
    const answer = await invoke(env.app, "POST", "/back_in_stock/reports/export", { key: demand.key, body: { report: "products_in_demand", variant_id: 1201 } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const { job_id: jobId } = answer.body as { job_id: string };
    const job = await waitFor("the export job", async () => {
      const { rows } = await env.app.pool.query<JobRow>("select * from jobs where id = $1", [jobId]);
      const row = rows[0];
      if (row?.status === "failed") throw new Error(`export failed: ${JSON.stringify(row.errors)}`);
      return row?.status === "completed" ? row : undefined;
    });
    const { download_path: path } = job.result as { download_path: string };
    const csv = await (await fetch(`${env.app.origin}${path}`, { headers: { "x-auth-token": demand.key } })).text();
    const [header, row] = csv.trim().split("\n");
    const columns = header?.split(",") ?? [];
    const values = row?.split(",") ?? [];
    expect(columns).toContain("units_wanted");
    expect(values[columns.indexOf("waiting")]).toBe("2");
    expect(values[columns.indexOf("units_wanted")]).toBe("5");
    expect(values[columns.indexOf("demand_value")]).toBe("50");
  });

  it("the copilot counts expected sales in units: units_wanted x conversion rate", async () => {
    const answer = await invoke(env.app, "GET", "/back_in_stock/copilot", { key: demand.key });
    expect(answer.status).toBe(200);
    const recommendations = (answer.body as { recommendations: { variant_id: string; waiting: number; units_wanted: number; expected_sales: number; demand_value: number; reason: string }[] })
      .recommendations;
    // No alert history: the assumed 10% of the 5 units wanted.
    const tote = recommendations.find((r) => r.variant_id === variantGid(1201));
    expect(tote).toMatchObject({ waiting: 2, units_wanted: 5, expected_sales: 0.5, demand_value: 50 });
    expect(tote?.reason).toContain("2 customers are waiting for Canvas Tote (5 units wanted in all)");
  });
});

describe("market_id's effect: the alert waits for stock at a location of the signup's market", () => {
  let alerts: SeedShop;
  let clock = 0;

  async function setStock(variant: number, location: number, available: number): Promise<void> {
    clock = Math.max(clock, Date.now()) + 1000;
    await deliverWebhook(
      env.app.origin,
      "inventory_levels/update",
      { inventory_item_id: variant, location_id: location, available, updated_at: new Date(clock).toISOString() },
      alerts.domain,
    );
    await webhooksProcessed(env.app.pool, alerts.shopId);
  }

  async function statusOf(contact: string): Promise<string | undefined> {
    const { rows } = await env.app.pool.query<{ status: string }>("select status from bis_signups where shop_id = $1 and contact = $2", [alerts.shopId, contact]);
    return rows[0]?.status;
  }

  async function waitForNotified(contacts: string[]): Promise<void> {
    await waitFor(`${contacts.join(", ")} notified`, async () => {
      for (const contact of contacts) if ((await statusOf(contact)) !== "notified") return undefined;
      return true;
    });
  }

  async function waitForRunsEnded(): Promise<void> {
    await waitFor("the shop's alert runs to end", async () => {
      const { rows } = await env.app.pool.query("select 1 from bis_alert_runs where shop_id = $1 and status = 'running'", [alerts.shopId]);
      return rows.length === 0 ? true : undefined;
    });
  }

  beforeAll(async () => {
    alerts = await newShop(env.app, "Market Alerts Shop", { delivery: { batch_multiplier: 10, batch_interval_seconds: 3600 } });
    await addMarkets(alerts);
    await seedVariants(env.app.pool, alerts.shopId, [{ n: 1301, product: 130, available: 0, productTitle: "Wool Cap" }]);
    // Location 2's level of the item, also empty (seedVariants writes location 1's).
    await env.app.pool.query(
      "insert into inventory_levels (shop_id, inventory_item_id, location_id, available, platform_updated_at) values ($1, 'gid://shopify/InventoryItem/1301', $2, 0, now())",
      [alerts.shopId, LOCATION_2],
    );
    await created({ variant_id: 1301, channel: "email", email: "anywhere@example.com" }, alerts);
    await created({ variant_id: 1301, channel: "email", email: "europe@example.com", market_id: MARKET_EU }, alerts);
    await created({ variant_id: 1301, channel: "email", email: "canada@example.com", market_id: MARKET_NO_LOCATIONS }, alerts);
  });

  it("a restock at a location the market does not sell from alerts the others, not the market's signup; stock at its location then does", async () => {
    // Location 1 belongs to the primary market only: Europe ships from location 2.
    await setStock(1301, 1, 5);
    await waitForNotified(["anywhere@example.com", "canada@example.com"]);
    await waitForRunsEnded();
    expect(await statusOf("europe@example.com")).toBe("waiting");
    expect(env.sink.to("europe@example.com")).toHaveLength(0);
    expect(env.sink.to("anywhere@example.com")).toHaveLength(1);
    expect(env.sink.to("canada@example.com")).toHaveLength(1);

    // Europe's location gets stock: its signup is alerted now.
    await setStock(1301, 2, 3);
    await waitForNotified(["europe@example.com"]);
    expect(env.sink.to("europe@example.com")).toHaveLength(1);
    expect(env.sink.to("anywhere@example.com")).toHaveLength(1);
  });
});
