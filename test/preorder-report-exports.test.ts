import { beforeAll, describe, expect, it } from "vitest";
import { invoke } from "./helpers/app.ts";
import { waitFor } from "./helpers/wait.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { seedPreorderOrder } from "./helpers/preorders.ts";

const env = useTestEnv({ shop: "Report Hardening Shop", worker: true });
let offerId: string;

const REPORTS = ["by_offer", "balance_collection"] as const;

async function exportCsv(report: string, body: unknown): Promise<string> {
  const answer = await invoke(env.app, "POST", `/preorders/reports/${report}/export`, { key: env.key, body });
  expect(answer.status).toBe(202);
  const { status_url: statusUrl } = answer.body as { status_url: string };
  const job = await waitFor("the export job to finish", async () => {
    const j = (await invoke(env.app, "GET", statusUrl.replace("/api/v2/external", ""), { key: env.key })).body as { status: string; errors: unknown[]; result: { download_path: string } };
    return ["completed", "failed", "cancelled"].includes(j.status) ? j : undefined;
  });
  expect(job).toMatchObject({ status: "completed", errors: [] });
  const response = await fetch(`${env.app.origin}${job.result.download_path}`, { headers: { "x-auth-token": env.key } });
  expect(response.status).toBe(200);
  return response.text();
}

beforeAll(async () => {
  const { rows } = await env.app.pool.query<{ id: string }>(
    "insert into preorder_offers (shop_id, name, internal_name, platform_selling_plan_id) values ($1, 'Offer', 'Offer', 'gid://shopify/SellingPlan/7') returning id",
    [env.shopId],
  );
  offerId = rows[0]?.id ?? "";
  // September: one live deposit order (balance 30 of 50 still due), one paid order, one cancelled
  // on the platform, one cancelled in the app while its balance was due, one refunded.
  await seedPreorderOrder(env.app.pool, env.shopId, { createdAt: "2026-09-02T10:00:00Z", outstanding: 30, balance: 30, financialStatus: "partially_paid", lines: [{ quantity: 1, price: 50, product: 1, sellingPlan: 7, offerId }] });
  await seedPreorderOrder(env.app.pool, env.shopId, { createdAt: "2026-09-03T10:00:00Z", lines: [{ quantity: 2, price: 10, product: 1, sellingPlan: 7, offerId }] });
  await seedPreorderOrder(env.app.pool, env.shopId, { createdAt: "2026-09-04T10:00:00Z", platformCancelledAt: "2026-09-05T00:00:00Z", lines: [{ quantity: 5, price: 100, product: 1, sellingPlan: 7, offerId }] });
  await seedPreorderOrder(env.app.pool, env.shopId, { createdAt: "2026-09-04T11:00:00Z", outstanding: 150, balance: 150, financialStatus: "partially_paid", cancelledAt: "2026-09-06T00:00:00Z", lines: [{ quantity: 1, price: 200, product: 1, sellingPlan: 7, offerId }] });
  await seedPreorderOrder(env.app.pool, env.shopId, { createdAt: "2026-09-05T10:00:00Z", financialStatus: "refunded", lines: [{ quantity: 3, price: 40, product: 1, sellingPlan: 7, offerId }] });
});

describe("report export bodies", () => {
  it.each(REPORTS)("%s: an invalid from beside a valid to is 422 naming from (was 500)", async (report) => {
    const answer = await invoke(env.app, "POST", `/preorders/reports/${report}/export`, { key: env.key, body: { from: "not-a-date", to: "2027-01-01" } });
    expect(answer).toMatchObject({ status: 422, body: { errors: ["from must be an ISO 8601 date or timestamp"] } });
    const alone = await invoke(env.app, "POST", `/preorders/reports/${report}/export`, { key: env.key, body: { from: "not-a-date" } });
    expect(alone.body).toEqual(answer.body);
    const badTo = await invoke(env.app, "POST", `/preorders/reports/${report}/export`, { key: env.key, body: { from: "2026-01-01", to: "2027-13-01" } });
    expect(badTo).toMatchObject({ status: 422, body: { errors: ["to must be an ISO 8601 date or timestamp"] } });
  });

  it.each([1.5, "2", true, null])("page and per_page must be JSON integers: %j is 422", async (value) => {
    const answer = await invoke(env.app, "POST", "/preorders/reports/by_offer/export", { key: env.key, body: { page: value, per_page: value } });
    expect(answer).toMatchObject({ status: 422, body: { errors: ["page must be an integer", "per_page must be an integer"] } });
  });

  it("takes bounds at the ends of PostgreSQL's calendar (year 10000 was sent as +010000, year 0 accepted)", async () => {
    expect(await exportCsv("by_offer", { to: "9999-12-31", granularity: "month", metrics: ["orders"] })).toContain("2026-09-01");
    const list = await invoke(env.app, "GET", "/preorders/orders?created_to=9999-12-31T23:59:59.999Z", { key: env.key });
    expect(list).toMatchObject({ status: 200, body: { total: 5 } });
    const yearZero = await invoke(env.app, "GET", "/preorders/orders?created_from=0000-06-01", { key: env.key });
    expect(yearZero).toMatchObject({ status: 422, body: { errors: ["created_from must be an ISO 8601 date or timestamp"] } });
    const beforeYearOne = await invoke(env.app, "POST", "/preorders/reports/by_offer/export", { key: env.key, body: { from: "0001-01-01T00:30:00+01:00" } });
    expect(beforeYearOne).toMatchObject({ status: 422, body: { errors: ["from must be an ISO 8601 date or timestamp"] } });
  });

  it("compares the bounds as instants, whatever their precision", async () => {
    // The exclusive end of 9999-12-31 is in year 10000, which a text comparison put before any from.
    expect((await invoke(env.app, "POST", "/preorders/reports/by_offer/export", { key: env.key, body: { from: "2026-01-01", to: "9999-12-31" } })).status).toBe(202);
    // Half a second inside the day of from: not before it.
    expect((await invoke(env.app, "POST", "/preorders/reports/by_offer/export", { key: env.key, body: { from: "2026-10-01", to: "2026-10-01T00:00:00.499Z" } })).status).toBe(202);
    const backwards = await invoke(env.app, "POST", "/preorders/reports/by_offer/export", { key: env.key, body: { from: "2026-10-01T00:00:00.500Z", to: "2026-10-01T00:00:00.499Z" } });
    expect(backwards).toMatchObject({ status: 422, body: { errors: ["to must be after from"] } });
    expect((await invoke(env.app, "POST", "/preorders/reports/by_offer/export", { key: env.key, body: { page: 2, per_page: 10 } })).status).toBe(202);
  });
});

describe("aggregated exports leave cancelled and refunded orders out of their sums", () => {
  it("by_offer per month, week and day counts the live orders only", async () => {
    const metrics = ["orders", "units", "gross_sales", "deposits_paid", "balance_due", "balance_collected", "balance_outstanding"];
    const monthly = await exportCsv("by_offer", { granularity: "month", metrics });
    expect(monthly).toBe(
      [`period_start,offer_id,offer_name,currency,${metrics.join(",")}`, `2026-09-01,${offerId},Offer,USD,2,3,70.00,20.00,30.00,0.00,30.00`, ""].join("\n"),
    );
    const weekly = await exportCsv("by_offer", { granularity: "week", metrics: ["orders", "units"] });
    expect(weekly).toBe(["period_start,offer_id,offer_name,currency,orders,units", `2026-08-31,${offerId},Offer,USD,2,3`, ""].join("\n"));
    const daily = await exportCsv("by_offer", { granularity: "day", metrics: ["orders", "units"] });
    // A day with only cancelled or refunded orders has no row.
    expect(daily).toBe(
      ["period_start,offer_id,offer_name,currency,orders,units", `2026-09-02,${offerId},Offer,USD,1,1`, `2026-09-03,${offerId},Offer,USD,1,2`, ""].join("\n"),
    );
  });

  it("granularity none still lists every line, with its order's status", async () => {
    const csv = await exportCsv("by_offer", { metrics: ["units"] });
    const statuses = csv
      .trimEnd()
      .split("\n")
      .slice(1)
      .map((line) => line.split(",")[6]);
    expect(statuses).toEqual(["awaiting_balance", "placed", "cancelled", "cancelled", "refunded"]);
  });

  it("granularity none gives a cancelled or refunded order's lines zero metrics: its rows add up to the months'", async () => {
    const metrics = ["units", "gross_sales", "deposits_paid", "balance_due", "balance_collected", "balance_outstanding"];
    const perLine = await exportCsv("by_offer", { metrics });
    const rows = perLine.trimEnd().split("\n").slice(1).map((line) => line.split(","));
    expect(rows.map((r) => [r[6], ...r.slice(11)])).toEqual([
      ["awaiting_balance", "1", "50.00", "20.00", "30.00", "0.00", "30.00"],
      ["placed", "2", "20.00", "0.00", "0.00", "0.00", "0.00"],
      ["cancelled", "0", "0.00", "0.00", "0.00", "0.00", "0.00"],
      ["cancelled", "0", "0.00", "0.00", "0.00", "0.00", "0.00"],
      ["refunded", "0", "0.00", "0.00", "0.00", "0.00", "0.00"],
    ]);
    const monthly = await exportCsv("by_offer", { granularity: "month", metrics });
    const month = monthly.trimEnd().split("\n")[1]?.split(",").slice(4) ?? [];
    const sums = metrics.map((_m, i) => rows.reduce((s, r) => s + Math.round(Number(r[11 + i]) * 100), 0));
    expect(sums).toEqual(month.map((v) => Math.round(Number(v) * 100)));
  });

  it("balance_collection per month sums the live orders' balances only; per order it lists them all", async () => {
    const monthly = await exportCsv("balance_collection", { granularity: "month", metrics: ["orders", "balance_due", "balance_outstanding"] });
    expect(monthly).toBe(["period_start,currency,orders,balance_due,balance_outstanding", "2026-09-01,USD,1,30.00,30.00", ""].join("\n"));
    const perOrder = await exportCsv("balance_collection", { metrics: ["balance_due"] });
    expect(perOrder.trimEnd().split("\n").slice(1).map((line) => line.split(",")[3])).toEqual(["awaiting_balance", "cancelled"]);
    // The cancelled order is listed with nothing due: the per-order rows add up to the month's.
    const perOrderMetrics = await exportCsv("balance_collection", { metrics: ["units", "balance_due", "balance_outstanding"] });
    expect(perOrderMetrics.trimEnd().split("\n").slice(1).map((line) => [line.split(",")[3], ...line.split(",").slice(7)])).toEqual([
      ["awaiting_balance", "1", "30.00", "30.00"],
      ["cancelled", "0", "0.00", "0.00"],
    ]);
  });
});
