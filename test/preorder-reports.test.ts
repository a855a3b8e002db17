import { beforeAll, describe, expect, it } from "vitest";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { waitFor } from "./helpers/wait.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { seedOffer } from "./helpers/preorders.ts";
import { deliverWebhook, webhooksProcessed } from "./helpers/webhook-delivery.ts";

const env = useTestEnv({ shop: "Reports Shop", worker: true });
let otherKey: string;
const DOMAIN = "reports.platform.local";

interface Line {
  variant: number;
  quantity: number;
  price: string;
  plan: number | null;
}

function order(id: number, createdAt: string, lines: Line[], money: { financial: string; outstanding: string }, email = `c${id}@example.com`) {
  const total = lines.reduce((s, l) => s + Number(l.price) * l.quantity, 0).toFixed(2);
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    name: `#${id}`,
    email,
    created_at: createdAt,
    updated_at: createdAt,
    cancelled_at: null,
    financial_status: money.financial,
    fulfillment_status: null,
    currency: "USD",
    total_price: total,
    total_outstanding: money.outstanding,
    tags: "",
    customer: null,
    line_items: lines.map((l, i) => ({
      id: id * 10 + i,
      variant_id: l.variant,
      product_id: l.variant * 10,
      quantity: l.quantity,
      price: l.price,
      selling_plan_allocation: l.plan === null ? null : { selling_plan_id: l.plan },
    })),
  };
}

const deliver = (topic: string, payload: unknown): Promise<void> => deliverWebhook(env.app.origin, topic, payload, DOMAIN);
const processed = (): Promise<void> => webhooksProcessed(env.app.pool);

interface ExportJob {
  status: string;
  total: number | null;
  processed: number;
  result: { download_path: string; export_id: string; rows: number; filename: string; bytes: number };
  errors: unknown[];
}

async function runExport(report: string, body: unknown, apiKey = env.key): Promise<ExportJob> {
  const answer = await invoke(env.app, "POST", `/preorders/reports/${report}/export`, { key: apiKey, body });
  expect(answer.status).toBe(202);
  const { status_url: statusUrl } = answer.body as { status_url: string };
  return waitFor("the export job to finish", async () => {
    const job = (await invoke(env.app, "GET", statusUrl.replace("/api/v2/external", ""), { key: apiKey })).body as ExportJob;
    return ["completed", "failed", "cancelled"].includes(job.status) ? job : undefined;
  });
}

async function download(job: ExportJob, apiKey = env.key): Promise<{ status: number; type: string | null; disposition: string | null; text: string }> {
  const response = await fetch(`${env.app.origin}${job.result.download_path}`, { headers: { "x-auth-token": apiKey } });
  return { status: response.status, type: response.headers.get("content-type"), disposition: response.headers.get("content-disposition"), text: await response.text() };
}

/** The CSV as records by header (the test data has no commas or quotes inside values). */
function rowsOf(csv: string): Record<string, string>[] {
  const [header = "", ...lines] = csv.trimEnd().split("\n");
  const columns = header.split(",");
  return lines.map((line) => Object.fromEntries(line.split(",").map((value, i) => [columns[i] ?? `?${i}`, value])));
}

let orderIds: Record<number, string> = {};
let offerA = "";
let offerB = "";

beforeAll(async () => {
  ({ apiKey: otherKey } = await createShopWithKey(env.app.pool, "Other Shop"));
  await env.app.pool.query("update shops set platform_domain = $2 where id = $1", [env.shopId, DOMAIN]);
  await env.app.pool.query("insert into markets (shop_id, id, name) values ($1, 'gid://shopify/Market/1', 'US')", [env.shopId]);
  offerA = await seedOffer(env.app.pool, env.shopId, "Offer A", 11);
  offerB = await seedOffer(env.app.pool, env.shopId, "Offer B", 22);
  // 1: a deposit order, half paid, two preorder lines of offer a and a plain line
  await deliver(
    "orders/create",
    order(
      1,
      "2026-09-10T08:00:00Z",
      [
        { variant: 1, quantity: 2, price: "30.00", plan: 11 },
        { variant: 2, quantity: 1, price: "40.00", plan: 11 },
        { variant: 3, quantity: 1, price: "0.00", plan: null },
      ],
      { financial: "partially_paid", outstanding: "50.00" },
    ),
  );
  // 2: offer b, paid in full
  await deliver("orders/create", order(2, "2026-09-20T08:00:00Z", [{ variant: 4, quantity: 3, price: "10.00", plan: 22 }], { financial: "paid", outstanding: "0.00" }));
  // 3: offer b, deposit then balance paid, in October
  await deliver("orders/create", order(3, "2026-10-05T08:00:00Z", [{ variant: 4, quantity: 1, price: "80.00", plan: 22 }], { financial: "partially_paid", outstanding: "60.00" }));
  await processed();
  await deliver("orders/paid", { ...order(3, "2026-10-05T08:00:00Z", [{ variant: 4, quantity: 1, price: "80.00", plan: 22 }], { financial: "paid", outstanding: "0.00" }), updated_at: "2026-10-06T00:00:00Z" });
  await processed();
  const { rows } = await env.app.pool.query<{ id: string; platform_order_id: string }>("select id, platform_order_id from preorder_orders where shop_id = $1", [env.shopId]);
  orderIds = Object.fromEntries(rows.map((r) => [Number(r.platform_order_id.split("/").pop()), r.id]));
});

describe("report exports", () => {
  it("by_offer, one row per preorder line: the CSV streamed into storage, downloaded as text/csv", async () => {
    const job = await runExport("by_offer", {});
    expect(job.errors).toEqual([]);
    expect(job).toMatchObject({ status: "completed", total: 4, processed: 4, result: { rows: 4 } });
    expect(job.result.download_path).toBe(`/api/v2/external/exports/${job.result.export_id}`);
    const file = await download(job);
    expect(file.status).toBe(200);
    expect(file.type).toBe("text/csv; charset=utf-8");
    expect(file.disposition).toContain(job.result.filename);
    expect(file.text.split("\n")[0]).toBe(
      "offer_id,offer_name,selling_plan_id,order_id,order_name,order_created_at,status,customer_email,product_id,variant_id,currency,units,gross_sales,deposits_paid,balance_due,balance_collected,balance_outstanding",
    );
    expect(job.result.bytes).toBe(Buffer.byteLength(file.text));
    expect(rowsOf(file.text)).toEqual([
      {
        offer_id: offerA,
        offer_name: "Offer A",
        selling_plan_id: "gid://shopify/SellingPlan/11",
        order_id: orderIds[1],
        order_name: "#1",
        order_created_at: "2026-09-10T08:00:00Z",
        status: "awaiting_balance",
        customer_email: "c1@example.com",
        product_id: "gid://shopify/Product/10",
        variant_id: "gid://shopify/ProductVariant/1",
        currency: "USD",
        units: "2",
        gross_sales: "60.00",
        deposits_paid: "30.00",
        balance_due: "30.00",
        balance_collected: "0.00",
        balance_outstanding: "30.00",
      },
      expect.objectContaining({ order_id: orderIds[1], variant_id: "gid://shopify/ProductVariant/2", units: "1", gross_sales: "40.00", deposits_paid: "20.00", balance_outstanding: "20.00" }),
      expect.objectContaining({ offer_id: offerB, order_id: orderIds[2], status: "placed", units: "3", gross_sales: "30.00", deposits_paid: "0.00", balance_due: "0.00" }),
      expect.objectContaining({
        offer_id: offerB,
        order_id: orderIds[3],
        status: "balance_collected",
        gross_sales: "80.00",
        deposits_paid: "20.00",
        balance_due: "60.00",
        balance_collected: "60.00",
        balance_outstanding: "0.00",
      }),
    ]);
  });

  it("by_offer per month, filtered and with chosen metrics", async () => {
    const monthly = await download(await runExport("by_offer", { granularity: "month", metrics: ["orders", "units", "gross_sales"] }));
    expect(monthly.text).toBe(
      [
        "period_start,offer_id,offer_name,currency,orders,units,gross_sales",
        `2026-09-01,${offerA},Offer A,USD,1,3,100.00`,
        `2026-09-01,${offerB},Offer B,USD,1,3,30.00`,
        `2026-10-01,${offerB},Offer B,USD,1,1,80.00`,
        "",
      ].join("\n"),
    );
    const filtered = await download(await runExport("by_offer", { offer_ids: [offerB], from: "2026-10-01", to: "2026-10-31", granularity: "none", include_balances: false }));
    expect(rowsOf(filtered.text)).toEqual([expect.objectContaining({ order_id: orderIds[3], units: "1", gross_sales: "80.00", deposits_paid: "20.00" })]);
    expect(filtered.text.split("\n")[0]).not.toContain("balance");
    const byVariant = await download(await runExport("by_offer", { variant_id: 2, metrics: ["units"] }));
    expect(rowsOf(byVariant.text).map((r) => r.units)).toEqual(["1"]);
    const paged = await runExport("by_offer", { page: 2, per_page: 3 });
    expect(rowsOf((await download(paged)).text).map((r) => r.order_id)).toEqual([orderIds[3]]);
  });

  it("balance_collection: the orders that had a balance, per order and per week", async () => {
    const file = await download(await runExport("balance_collection", {}));
    expect(rowsOf(file.text)).toEqual([
      {
        order_id: orderIds[1] ?? "",
        order_name: "#1",
        order_created_at: "2026-09-10T08:00:00Z",
        status: "awaiting_balance",
        customer_email: "c1@example.com",
        currency: "USD",
        balance_collection_requested_at: "",
        units: "3",
        gross_sales: "100.00",
        deposits_paid: "50.00",
        balance_due: "50.00",
        balance_collected: "0.00",
        balance_outstanding: "50.00",
      },
      expect.objectContaining({ order_id: orderIds[3], status: "balance_collected", balance_due: "60.00", balance_collected: "60.00", balance_outstanding: "0.00" }),
    ]);
    const weekly = await download(await runExport("balance_collection", { granularity: "week", metrics: ["orders", "balance_due", "balance_outstanding"] }));
    expect(weekly.text).toBe(["period_start,currency,orders,balance_due,balance_outstanding", "2026-09-07,USD,1,50.00,50.00", "2026-10-05,USD,1,60.00,0.00", ""].join("\n"));
    const none = await download(await runExport("balance_collection", { currency: "EUR" }));
    expect(rowsOf(none.text)).toEqual([]);
  });

  it("validates every field of the body", async () => {
    const bad = await invoke(env.app, "POST", "/preorders/reports/by_offer/export", {
      key: env.key,
      body: { from: "last week", granularity: "year", metrics: ["revenue"], currency: "usd", per_page: 1001, page: 0, include_deposits: "yes", colour: "red", offer_ids: [] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      errors: expect.arrayContaining([
        "from must be an ISO 8601 date or timestamp",
        "granularity must be one of: none, day, week, month",
        "metrics.0 must be one of: orders, units, gross_sales, deposits_paid, balance_due, balance_collected, balance_outstanding",
        "currency must be an ISO 4217 currency code",
        "per_page must be at most 1000",
        "page must be at least 1",
        "include_deposits must be a boolean",
        "colour is not allowed",
        "offer_ids must contain at least 1 items",
      ]) as unknown,
    });
    const backwards = await invoke(env.app, "POST", "/preorders/reports/balance_collection/export", { key: env.key, body: { from: "2026-10-02", to: "2026-10-01" } });
    expect(backwards).toMatchObject({ status: 422, body: { errors: ["to must be after from"] } });
    const market = await invoke(env.app, "POST", "/preorders/reports/by_offer/export", { key: env.key, body: { market_id: "999" } });
    expect(market).toMatchObject({ status: 422, body: { errors: ["market_id must be one of the shop's markets"] } });
    expect((await invoke(env.app, "POST", "/preorders/reports/by_offer/export", { key: env.key, body: { market_id: "1" } })).status).toBe(202);
  });

  it("writes an offer name or an order's e-mail that starts like a spreadsheet formula as text", async () => {
    await env.app.pool.query("update preorder_offers set name = '=1+2' where id = $1", [offerB]);
    await env.app.pool.query("update preorder_orders set email = '@SUM(A1)' where id = $1", [orderIds[2]]);
    try {
      const file = await download(await runExport("by_offer", {}));
      const row = rowsOf(file.text).find((r) => r.order_id === orderIds[2]);
      expect(row).toMatchObject({ offer_name: "'=1+2", customer_email: "'@SUM(A1)", gross_sales: "30.00" });
    } finally {
      await env.app.pool.query("update preorder_offers set name = 'Offer B' where id = $1", [offerB]);
      await env.app.pool.query("update preorder_orders set email = 'c2@example.com' where id = $1", [orderIds[2]]);
    }
  });

  it("serves a download to the shop that ran the export only", async () => {
    const job = await runExport("by_offer", {});
    const other = await download(job, otherKey);
    expect(other.status).toBe(404);
    expect(JSON.parse(other.text)).toEqual({ errors: [`Export not found: ${job.result.export_id}`] });
    const otherJob = await invoke(env.app, "GET", `/jobs/${job.result.export_id}`, { key: otherKey });
    expect(otherJob.status).toBe(404);
  });

  it("lists every report export in /help, by_offer's and balance_collection's with their body's formats", async () => {
    const help = (await invoke(env.app, "GET", "/help?prefix=/preorders/reports", { key: env.key })).body as { actions: { path: string; description: string; async: boolean }[] };
    // The JSON report reads (test/preorder-report-reads.test.ts) and their CSV exports
    // (test/preorder-read-exports.test.ts) share the prefix.
    const exports = help.actions.filter((a) => a.path.endsWith("/export"));
    expect(exports.map((a) => a.path).sort()).toEqual([
      "/preorders/reports/balance_collection/export",
      "/preorders/reports/by_date/export",
      "/preorders/reports/by_offer/export",
      "/preorders/reports/by_variant/export",
      "/preorders/reports/customers/export",
      "/preorders/reports/revenue/export",
      "/preorders/reports/summary/export",
    ]);
    for (const action of exports) expect(action.async).toBe(true);
    for (const action of exports.filter((a) => a.path.endsWith("/by_offer/export") || a.path.endsWith("/balance_collection/export"))) {
      expect(action.description).toContain("granularity (none");
      expect(action.description).toContain("ISO 4217");
    }
  });
});
