import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Runner } from "graphile-worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobRow } from "../src/core/jobs.ts";
import { startWorker } from "../src/runtime/worker.ts";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { seedOrder, seedSignups, seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { testPlatformRuntime } from "./helpers/platform.ts";
import { waitFor } from "./helpers/wait.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const platform = testPlatformRuntime();
const env = useTestEnv({ shop: "Reports shop" });
let other: { shopId: string; apiKey: string };
let ids: string[];

/**
 * The reports shop, January 2026:
 *   501 (product 50, 20.00, 0 in stock): #1 waiting; #2 and #3 (sms) converted on order 1001; #8 converted on 1003 (cancelled)
 *   502 (product 50, 50.00, 0 in stock): #4 notified; #5 converted on order 1002
 *   503 (product 51, 10.00, 5 in stock): #6 unsubscribed; #7 waiting (February)
 * Order 1001 has 2 x 501 at 20.00 and 1 x 502 at 50.00; 1002 has 1 x 502 at 45.00; 1003 (cancelled) 1 x 501.
 */
beforeAll(async () => {
  other = await createShopWithKey(env.app.pool, "Other shop");
  await seedVariants(env.app.pool, env.shop.shopId, [
    { n: 501, product: 50, price: "20.00", available: 0, productTitle: "Linen Shirt", title: "M" },
    { n: 502, product: 50, price: "50.00", available: 0, productTitle: "Linen Shirt", title: "L" },
    { n: 503, product: 51, price: "10.00", available: 5, productTitle: "Wool Socks" },
  ]);
  const o1 = await seedOrder(env.app.pool, env.shop.shopId, 1001, [
    { variant: 501, quantity: 2, price: "20.00" },
    { variant: 502, quantity: 1, price: "50.00" },
  ]);
  const o2 = await seedOrder(env.app.pool, env.shop.shopId, 1002, [{ variant: 502, quantity: 1, price: "45.00" }]);
  const o3 = await seedOrder(env.app.pool, env.shop.shopId, 1003, [{ variant: 501, quantity: 1, price: "20.00" }], { cancelled: true });
  const converted = (createdAt: string, notifiedAt: string, convertedAt: string, orderId: string) =>
    ({ status: "converted", createdAt, notifiedAt, convertedAt, orderId }) as const;
  ids = await seedSignups(env.app.pool, env.shop.shopId, [
    { variant: 501, product: 50, contact: "a@example.com", createdAt: "2026-01-01T10:00:00Z" },
    { variant: 501, product: 50, contact: "b@example.com", ...converted("2026-01-01T12:00:00Z", "2026-01-05T09:00:00Z", "2026-01-06T09:00:00Z", o1) },
    { variant: 501, product: 50, contact: "+15550000003", channel: "sms", ...converted("2026-01-02T10:00:00Z", "2026-01-05T09:00:00Z", "2026-01-06T10:00:00Z", o1) },
    { variant: 502, product: 50, contact: "d@example.com", status: "notified", createdAt: "2026-01-03T10:00:00Z", notifiedAt: "2026-01-05T09:00:00Z" },
    { variant: 502, product: 50, contact: "e@example.com", ...converted("2026-01-08T10:00:00Z", "2026-01-09T09:00:00Z", "2026-01-10T09:00:00Z", o2) },
    { variant: 503, product: 51, contact: "f@example.com", status: "unsubscribed", createdAt: "2026-01-09T10:00:00Z" },
    { variant: 503, product: 51, contact: "g@example.com", createdAt: "2026-02-01T10:00:00Z" },
    { variant: 501, product: 50, contact: "h@example.com", ...converted("2026-01-04T10:00:00Z", "2026-01-05T09:00:00Z", "2026-01-07T09:00:00Z", o3) },
  ]);
  const log = [
    [1, 501, "initial", "email", "sent", "2026-01-05T09:00:00Z"],
    [2, 501, "initial", "sms", "sent", "2026-01-05T09:00:01Z"],
    [3, 502, "initial", "email", "sent", "2026-01-05T09:00:02Z"],
    [0, 501, "initial", "email", "blocked", "2026-01-05T09:00:03Z"],
    [3, 502, "reminder", "email", "sent", "2026-01-07T09:00:00Z"],
    [4, 502, "initial", "email", "failed", "2026-01-09T08:00:00Z"],
    [4, 502, "initial", "email", "sent", "2026-01-09T09:00:00Z"],
    [1, 501, "signup_thank_you", "email", "sent", "2026-01-01T12:00:00Z"],
  ] as const;
  for (const [signup, variant, stage, channel, status, at] of log) {
    await env.app.pool.query(
      `insert into bis_notification_entries (shop_id, signup_id, variant_id, stage, channel, status, blocked_reason, error, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [env.shop.shopId, ids[signup], variantGid(variant), stage, channel, status, status === "blocked" ? "unsubscribed" : null, status === "failed" ? "SMTP 451" : null, at],
    );
  }
  await env.app.pool.query(
    "insert into bis_notification_entries (shop_id, variant_id, stage, channel, status, created_at) values ($1, $2, 'initial', 'email', 'sent', '2026-01-05T09:00:00Z')",
    [other.shopId, variantGid(501)],
  );
});

async function get<T>(path: string, key = env.shop.apiKey): Promise<T> {
  const answer = await invoke(env.app, "GET", path, { key });
  expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(200);
  return answer.body as T;
}

describe("GET /back_in_stock/notifications", () => {
  interface Page {
    notifications: { id: string; signup_id: string | null; recipient: string | null; stage: string; status: string; blocked_reason: string | null; error: string | null; created_at: string }[];
    next_cursor: string | null;
  }

  it("lists this shop's log newest first, with filters", async () => {
    const all = await get<Page>("/back_in_stock/notifications");
    expect(all.notifications).toHaveLength(8);
    expect(all.notifications[0]).toMatchObject({ status: "sent", stage: "initial", recipient: "e@example.com", created_at: "2026-01-09T09:00:00.000Z" });
    const statuses = async (query: string) => (await get<Page>(`/back_in_stock/notifications${query}`)).notifications.map((n) => `${n.stage}:${n.status}`);
    expect(await statuses("?status=blocked")).toEqual(["initial:blocked"]);
    expect((await get<Page>("/back_in_stock/notifications?status=blocked")).notifications[0]).toMatchObject({ blocked_reason: "unsubscribed" });
    expect((await get<Page>("/back_in_stock/notifications?status=failed")).notifications[0]).toMatchObject({ error: "SMTP 451" });
    expect(await statuses("?channel=sms")).toEqual(["initial:sent"]);
    expect(await statuses("?stage=reminder")).toEqual(["reminder:sent"]);
    expect(await statuses(`?signup_id=${ids[4]}`)).toEqual(["initial:sent", "initial:failed"]);
    expect(await statuses("?variant_id=502&from=2026-01-06&to=2026-01-08")).toEqual(["reminder:sent"]);
    expect(await statuses("?to=2026-01-01")).toEqual(["signup_thank_you:sent"]);
  });

  it("pages by cursor, and refuses bad filters", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await get<Page>(`/back_in_stock/notifications?per_page=3${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.notifications.map((n) => n.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(8);
    expect(new Set(seen).size).toBe(8);
    const bad = await invoke(env.app, "GET", "/back_in_stock/notifications?status=queued&signup_id=x", { key: env.shop.apiKey });
    expect(bad).toMatchObject({ status: 422, body: { errors: ["signup_id must be a valid signup id", "status must be one of: pending, sent, failed, blocked"] } });
    expect((await get<Page>("/back_in_stock/notifications", other.apiKey)).notifications).toHaveLength(1);
  });
});

describe("reports", () => {
  it("summary: the period's signups by where they stand, conversion rate and recovered revenue", async () => {
    expect(await get("/back_in_stock/reports/summary")).toEqual({
      from: null,
      to: null,
      signups: 8,
      pending: 2,
      notified: 5,
      conversions: 4,
      conversion_rate: 0.8,
      unsubscribed: 1,
      // order 1001: 2 x 20.00 for 501 once (two signups converted on it); 1002: 45.00 for 502; 1003 is cancelled
      recovered_revenue: 85,
    });
    expect(await get("/back_in_stock/reports/summary?from=2026-01-01&to=2026-01-31")).toMatchObject({
      from: "2026-01-01T00:00:00.000Z",
      to: "2026-02-01T00:00:00.000Z",
      signups: 7,
      pending: 1,
      recovered_revenue: 85,
    });
    expect(await get("/back_in_stock/reports/summary?variant_id=501")).toMatchObject({ signups: 4, pending: 1, notified: 3, conversions: 3, conversion_rate: 1, recovered_revenue: 40 });
    expect(await get("/back_in_stock/reports/summary?product_id=gid://shopify/Product/50")).toMatchObject({ signups: 6, notified: 5, conversions: 4, recovered_revenue: 85 });
    expect(await get("/back_in_stock/reports/summary?channel=sms")).toMatchObject({ signups: 1, conversions: 1, conversion_rate: 1, recovered_revenue: 40 });
    expect(await get("/back_in_stock/reports/summary?channel=email")).toMatchObject({ signups: 7, pending: 2, notified: 4, conversions: 3, conversion_rate: 0.75, recovered_revenue: 85 });
    expect(await get("/back_in_stock/reports/summary", other.apiKey)).toMatchObject({ signups: 0, conversion_rate: 0, recovered_revenue: 0 });
  });

  it("signups per day, week (from Monday) and month, zeros included", async () => {
    const days = await get<{ periods: unknown[] }>("/back_in_stock/reports/signups?from=2026-01-01&to=2026-01-04");
    expect(days).toMatchObject({ granularity: "day", from: "2026-01-01T00:00:00.000Z", to: "2026-01-05T00:00:00.000Z" });
    expect(days.periods).toEqual([
      { period: "2026-01-01", signups: 2, email: 2, sms: 0, waiting: 1, notified: 1, converted: 1, unsubscribed: 0 },
      { period: "2026-01-02", signups: 1, email: 0, sms: 1, waiting: 0, notified: 1, converted: 1, unsubscribed: 0 },
      { period: "2026-01-03", signups: 1, email: 1, sms: 0, waiting: 0, notified: 1, converted: 0, unsubscribed: 0 },
      { period: "2026-01-04", signups: 1, email: 1, sms: 0, waiting: 0, notified: 1, converted: 1, unsubscribed: 0 },
    ]);
    const weeks = await get<{ periods: { period: string; signups: number }[] }>("/back_in_stock/reports/signups?granularity=week&from=2026-01-01&to=2026-01-31");
    expect(weeks.periods.map((p) => [p.period, p.signups])).toEqual([
      ["2025-12-29", 5],
      ["2026-01-05", 2],
      ["2026-01-12", 0],
      ["2026-01-19", 0],
      ["2026-01-26", 0],
    ]);
    const months = await get<{ periods: { period: string; signups: number }[] }>("/back_in_stock/reports/signups?granularity=month&product_id=51");
    // from the first signup's month up to the current one
    expect(months.periods.slice(0, 2)).toEqual([expect.objectContaining({ period: "2026-01-01", signups: 1 }), expect.objectContaining({ period: "2026-02-01", signups: 1 })]);
    expect(months.periods.at(-1)?.period).toBe(`${new Date().toISOString().slice(0, 7)}-01`);
    expect((await get<{ periods: unknown[] }>("/back_in_stock/reports/signups", other.apiKey)).periods).toEqual([]);
  });

  it("notifications per day by outcome and stage", async () => {
    const report = await get<{ periods: unknown[] }>("/back_in_stock/reports/notifications?from=2026-01-05&to=2026-01-09");
    const zero = { sent: 0, failed: 0, blocked: 0, initial_sent: 0, reminder_sent: 0, signup_thank_you_sent: 0 };
    expect(report.periods).toEqual([
      { period: "2026-01-05", ...zero, sent: 3, blocked: 1, initial_sent: 3 },
      { period: "2026-01-06", ...zero },
      { period: "2026-01-07", ...zero, sent: 1, reminder_sent: 1 },
      { period: "2026-01-08", ...zero },
      { period: "2026-01-09", ...zero, sent: 1, failed: 1, initial_sent: 1 },
    ]);
    const sms = await get<{ periods: { sent: number }[] }>("/back_in_stock/reports/notifications?channel=sms&granularity=month&from=2026-01-01&to=2026-01-31");
    expect(sms.periods).toEqual([{ period: "2026-01-01", ...zero, sent: 1, initial_sent: 1 }]);
    const product = await get<{ periods: { sent: number }[] }>("/back_in_stock/reports/notifications?product_id=51&granularity=month&from=2026-01-01&to=2026-01-31");
    expect(product.periods).toEqual([{ period: "2026-01-01", ...zero }]);
  });

  it("conversions per day: alerted, converted, rate and revenue", async () => {
    const report = await get<{ periods: unknown[] }>("/back_in_stock/reports/conversions?from=2026-01-05&to=2026-01-10");
    const zero = { notified: 0, conversions: 0, conversion_rate: 0, recovered_revenue: 0 };
    expect(report.periods).toEqual([
      { period: "2026-01-05", ...zero, notified: 4 },
      { period: "2026-01-06", ...zero, conversions: 2, recovered_revenue: 40 },
      { period: "2026-01-07", ...zero, conversions: 1 },
      { period: "2026-01-08", ...zero },
      { period: "2026-01-09", ...zero, notified: 1 },
      { period: "2026-01-10", ...zero, conversions: 1, recovered_revenue: 45 },
    ]);
    const monthly = await get<{ periods: unknown[] }>("/back_in_stock/reports/conversions?granularity=month&from=2026-01-01&to=2026-01-31");
    expect(monthly.periods).toEqual([{ period: "2026-01-01", notified: 5, conversions: 4, conversion_rate: 0.8, recovered_revenue: 85 }]);
  });

  it("products in demand: most waiting first, with stock, price and demand value", async () => {
    const report = await get<{ variants: Record<string, unknown>[] }>("/back_in_stock/reports/products_in_demand");
    expect(report.variants.map((v) => v.variant_id)).toEqual([variantGid(501), variantGid(503), variantGid(502)]);
    expect(report.variants[0]).toEqual({
      variant_id: variantGid(501),
      product_id: "gid://shopify/Product/50",
      product_title: "Linen Shirt",
      variant_title: "M",
      sku: "SKU-501",
      price: 20,
      available: 0,
      signups: 4,
      waiting: 1,
      units_wanted: 1,
      notified: 3,
      conversions: 3,
      conversion_rate: 1,
      demand_value: 20,
    });
    expect(report.variants[1]).toMatchObject({ available: 5, waiting: 1, signups: 2, demand_value: 10 });
    const limited = await get<{ variants: unknown[] }>("/back_in_stock/reports/products_in_demand?limit=1&channel=email");
    expect(limited.variants).toEqual([expect.objectContaining({ variant_id: variantGid(501), signups: 3 })]);
  });

  it("refuses bad report filters", async () => {
    const cases: [string, string[]][] = [
      ["/back_in_stock/reports/signups?granularity=year", ["granularity must be one of: day, week, month"]],
      ["/back_in_stock/reports/summary?granularity=day", ["granularity is not allowed"]],
      ["/back_in_stock/reports/summary?from=2026-13-01", ["from must be an ISO 8601 date or timestamp"]],
      ["/back_in_stock/reports/products_in_demand?limit=251", ["limit must be at most 250"]],
      ["/back_in_stock/reports/conversions?variant_id=x", ["variant_id must be a numeric id or a gid://shopify/ProductVariant/<id>"]],
    ];
    for (const [path, errors] of cases) {
      const answer = await invoke(env.app, "GET", path, { key: env.shop.apiKey });
      expect(answer.status, path).toBe(422);
      expect(answer.body, path).toEqual({ errors });
    }
  });
});

describe("CSV export", () => {
  let runner: Runner | undefined;

  beforeAll(async () => {
    runner = await startWorker({ pool: env.app.pool, log: env.app.log, config: env.app.config, platform }, { pollInterval: 100, cron: false });
  });

  afterAll(async () => {
    await runner?.stop();
  });

  async function exported(body: Record<string, unknown>): Promise<{ job: JobRow; csv: string; response: Response }> {
    const answer = await invoke(env.app, "POST", "/back_in_stock/reports/export", { key: env.shop.apiKey, body });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const { job_id: jobId } = answer.body as { job_id: string };
    const job = await waitFor("the export job", async () => {
      const { rows } = await env.app.pool.query<JobRow>("select * from jobs where id = $1", [jobId]);
      const row = rows[0];
      if (row?.status === "failed") throw new Error(`export failed: ${JSON.stringify(row.errors)}`);
      return row?.status === "completed" ? row : undefined;
    });
    const { download_path: path } = job.result as { download_path: string };
    expect(path).toMatch(/^\/api\/v2\/external\/exports\/[0-9a-f-]{36}$/);
    const response = await fetch(`${env.app.origin}${path}`, { headers: { "x-auth-token": env.shop.apiKey } });
    expect(response.status).toBe(200);
    return { job, csv: await response.text(), response };
  }

  it("writes a report's CSV in a job and serves it as text/csv to the same shop only", async () => {
    const { job, csv, response } = await exported({ report: "summary", from: "2026-01-01", to: "2026-01-31" });
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="back-in-stock-summary-\d{8}-\d{6}\.csv"/);
    expect(csv).toBe(
      "from,to,signups,pending,notified,conversions,conversion_rate,unsubscribed,recovered_revenue\n" +
        "2026-01-01T00:00:00.000Z,2026-02-01T00:00:00.000Z,7,1,5,4,0.8,1,85\n",
    );
    expect(job.result).toMatchObject({ rows: 1, filename: expect.stringMatching(/\.csv$/) as unknown });
    const path = (job.result as { download_path: string }).download_path.replace("/api/v2/external", "");
    const foreign = await invoke(env.app, "GET", path, { key: other.apiKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ errors: [`Export not found: ${path.split("/").at(-1) ?? ""}`] });
    expect((await invoke(env.app, "GET", "/exports/not-an-id", { key: env.shop.apiKey })).status).toBe(404);
    expect((await fetch(`${env.app.origin}/api/v2/external${path}`)).status).toBe(401);

    // Over MCP the same download is the file's text.
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${env.app.origin}/api/v2/external/mcp?toolsets=all`), { requestInit: { headers: { "X-Auth-Token": env.shop.apiKey } } }));
    try {
      const result = await client.callTool({ name: "exports_download", arguments: { export_id: path.split("/").at(-1) } });
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: "text", text: csv }]);
    } finally {
      await client.close();
    }
  });

  it("exports time series and the demand list with their columns, quoting text", async () => {
    const weekly = await exported({ report: "signups", granularity: "week", from: "2026-01-01", to: "2026-01-11", channel: "email" });
    expect(weekly.csv.trim().split("\n")).toEqual([
      "period,signups,email,sms,waiting,notified,converted,unsubscribed",
      "2025-12-29,4,4,0,1,3,2,0",
      "2026-01-05,2,2,0,0,1,1,1",
    ]);
    await env.app.pool.query("update products set title = 'Linen Shirt, \"Classic\"' where shop_id = $1 and id = 'gid://shopify/Product/50'", [env.shop.shopId]);
    const demand = await exported({ report: "products_in_demand", variant_id: 501 });
    expect(demand.csv.trim().split("\n")).toEqual([
      "variant_id,product_id,product_title,variant_title,sku,price,available,signups,waiting,units_wanted,notified,conversions,conversion_rate,demand_value",
      'gid://shopify/ProductVariant/501,gid://shopify/Product/50,"Linen Shirt, ""Classic""",M,SKU-501,20,0,4,1,1,3,3,1,20',
    ]);
  });

  it("exports with the widest bounds (to 9999-12-31: its end is in year 10000)", async () => {
    const { job, csv } = await exported({ report: "summary", from: "0001-01-01", to: "9999-12-31" });
    expect(job.status).toBe("completed");
    expect(csv.split("\n")[0]).toContain("signups");
  });

  it("validates the export request before queueing anything", async () => {
    const before = await env.app.pool.query("select count(*)::int as n from jobs where kind = 'bis_report_export'");
    const cases: [Record<string, unknown>, string[]][] = [
      [{}, ["report is required"]],
      [{ report: "everything" }, ["report must be one of: summary, signups, notifications, conversions, products_in_demand"]],
      [{ report: "summary", granularity: "week" }, ["granularity is not allowed for report summary"]],
      [{ report: "signups", from: "soon", colour: 1 }, ["from must be an ISO 8601 date or timestamp", "colour is not allowed"]],
    ];
    for (const [body, errors] of cases) {
      const answer = await invoke(env.app, "POST", "/back_in_stock/reports/export", { key: env.shop.apiKey, body });
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.body, JSON.stringify(body)).toEqual({ errors });
    }
    const after = await env.app.pool.query("select count(*)::int as n from jobs where kind = 'bis_report_export'");
    expect(after.rows).toEqual(before.rows);
  });
});

describe("GET /back_in_stock/copilot", () => {
  interface Recommendation {
    rank: number;
    variant_id: string;
    waiting: number;
    signups_7d: number;
    signups_30d: number;
    trend: number;
    conversion_rate: number;
    conversion_rate_source: string;
    expected_sales: number;
    unmet_sales: number;
    score: number;
    available: number | null;
    reason: string;
  }

  const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

  it("ranks variants to restock by revenue at stake weighted by momentum, and says why", async () => {
    const copilotShop = await createShopWithKey(env.app.pool, "Copilot shop");
    await seedVariants(env.app.pool, copilotShop.shopId, [
      { n: 601, product: 60, price: "100.00", available: 0, productTitle: "Rain Jacket", title: "S" },
      { n: 602, product: 60, price: "20.00", available: 0, productTitle: "Rain Jacket", title: "M" },
      { n: 603, product: 61, price: "1000.00", available: 3, productTitle: "Tent" },
      { n: 604, product: 62, price: "5.00", productTitle: "Sticker" },
    ]);
    const many = (n: number, variant: number, product: number, extra: Record<string, unknown>) =>
      Array.from({ length: n }, (_, i) => ({ variant, product, contact: `v${variant}-${typeof extra.status === "string" ? extra.status : "w"}-${i}@example.com`, createdAt: daysAgo(40), ...extra }));
    await seedSignups(env.app.pool, copilotShop.shopId, [
      // 601: 10 waiting, all this week; no history of its own
      ...many(10, 601, 60, { createdAt: daysAgo(2) }),
      // 602: 20 waiting from 20 days ago; 10 alerted before, 5 of them bought
      ...many(20, 602, 60, { createdAt: daysAgo(20) }),
      ...many(5, 602, 60, { status: "notified", notifiedAt: daysAgo(35) }),
      ...many(5, 602, 60, { status: "converted", notifiedAt: daysAgo(35), convertedAt: daysAgo(34) }),
      // 603: 4 waiting, but 3 in stock cover the 2 expected sales
      ...many(4, 603, 61, {}),
      // 604: 2 waiting, stock unknown
      ...many(2, 604, 62, {}),
    ]);
    const answer = await get<{ scoring: string; recommendations: Recommendation[] }>("/back_in_stock/copilot", copilotShop.apiKey);
    expect(answer.scoring).toContain("unmet_sales x price x trend");
    expect(answer.recommendations.map((r) => [r.rank, r.variant_id])).toEqual([
      [1, variantGid(601)],
      [2, variantGid(602)],
      [3, variantGid(604)],
    ]);
    const [jacketS, jacketM, sticker] = answer.recommendations;
    // 10 waiting x 0.5 (the product's history) = 5 sales, none in stock, x 100.00, trend capped at 2
    expect(jacketS).toMatchObject({ waiting: 10, signups_7d: 10, signups_30d: 10, trend: 2, conversion_rate: 0.5, conversion_rate_source: "product", expected_sales: 5, unmet_sales: 5, score: 1000, available: 0 });
    // 20 x 0.5 (its own history) = 10 x 20.00, no signup this week: trend floored at 0.5
    expect(jacketM).toMatchObject({ waiting: 20, signups_7d: 0, signups_30d: 20, trend: 0.5, conversion_rate_source: "variant", expected_sales: 10, score: 100 });
    // 2 x 0.5 (the shop's history) x 5.00, no recent signups: trend 1
    expect(sticker).toMatchObject({ waiting: 2, trend: 1, conversion_rate_source: "shop", score: 5, available: null });
    expect(jacketS?.reason).toBe(
      "10 customers are waiting for Rain Jacket (S) and it is out of stock. 10 signups in the last 7 days and 10 in the last 30: demand is rising. As past alerts for this product converted 50% of alerted customers, a restock should sell about 5 units (about 500 in revenue at 100 each).",
    );
    expect(jacketM?.reason).toContain("demand is slowing");
    expect(jacketM?.reason).toContain("past alerts for this variant converted 50%");
    expect(sticker?.reason).toContain("its stock is unknown");

    const limited = await get<{ recommendations: Recommendation[] }>("/back_in_stock/copilot?limit=1", copilotShop.apiKey);
    expect(limited.recommendations.map((r) => r.variant_id)).toEqual([variantGid(601)]);
    const product = await get<{ recommendations: Recommendation[] }>("/back_in_stock/copilot?product_id=62", copilotShop.apiKey);
    expect(product.recommendations.map((r) => r.variant_id)).toEqual([variantGid(604)]);
  });

  it("assumes a conversion rate when the shop has no alert history", async () => {
    const fresh = await createShopWithKey(env.app.pool, "Fresh shop");
    await seedVariants(env.app.pool, fresh.shopId, [{ n: 701, product: 70, price: "30.00", available: 0, productTitle: "Mug" }]);
    await seedSignups(env.app.pool, fresh.shopId, [{ variant: 701, product: 70, contact: "m@example.com", createdAt: daysAgo(1) }]);
    const answer = await get<{ recommendations: Recommendation[] }>("/back_in_stock/copilot", fresh.apiKey);
    expect(answer.recommendations).toEqual([
      expect.objectContaining({ variant_id: variantGid(701), conversion_rate: 0.1, conversion_rate_source: "default", expected_sales: 0.1, score: 6 }),
    ]);
    expect(answer.recommendations[0]?.reason).toContain("1 customer is waiting for Mug");
    expect(answer.recommendations[0]?.reason).toContain("assumed");
    expect((await get<{ recommendations: unknown[] }>("/back_in_stock/copilot", other.apiKey)).recommendations).toEqual([]);
  });
});
