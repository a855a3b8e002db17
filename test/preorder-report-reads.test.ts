import { beforeAll, describe, expect, it } from "vitest";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { seedOffer, seedPreorderOrder } from "./helpers/preorders.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useTestEnv({ shop: "Report Reads Shop", worker: true });
let otherKey: string;
let offerA = "";
let offerB = "";

beforeAll(async () => {
  ({ apiKey: otherKey } = await createShopWithKey(env.app.pool, "Other Shop"));
  await env.app.pool.query("insert into markets (shop_id, id, name) values ($1, 'gid://shopify/Market/1', 'US')", [env.shopId]);
  await env.app.pool.query(
    `insert into products (shop_id, id, title, handle, status, platform_updated_at) values ($1, 'gid://shopify/Product/10', 'Jacket', 'jacket', 'ACTIVE', now())`,
    [env.shopId],
  );
  await env.app.pool.query(
    `insert into variants (shop_id, id, legacy_id, product_id, title, price, inventory_policy, inventory_item_id, platform_updated_at)
     values ($1, 'gid://shopify/ProductVariant/1', 1, 'gid://shopify/Product/10', 'Small', 30, 'DENY', 'gid://shopify/InventoryItem/1', now())`,
    [env.shopId],
  );
  offerA = await seedOffer(env.app.pool, env.shopId, "Offer A");
  offerB = await seedOffer(env.app.pool, env.shopId, "Offer B");
  // 1: half paid deposit order, two lines of offer A (shares 60% and 40%).
  await seedPreorderOrder(env.app.pool, env.shopId, { createdAt: "2026-09-10T08:00:00Z", email: "a@example.com", outstanding: "50.00", financialStatus: "paid", marketId: "gid://shopify/Market/1", lines: [{ variant: 1, product: 10, quantity: 2, price: "30.00", offerId: offerA }, { variant: 2, product: 20, quantity: 1, price: "40.00", offerId: offerA }] });
  // 2: paid in full, offer B.
  await seedPreorderOrder(env.app.pool, env.shopId, { createdAt: "2026-09-20T08:00:00Z", email: "b@example.com", marketId: "gid://shopify/Market/1", lines: [{ variant: 4, product: 40, quantity: 3, price: "10.00", offerId: offerB }] });
  // 3: EUR, deposit then balance collected, offer B, in October.
  await seedPreorderOrder(env.app.pool, env.shopId, { createdAt: "2026-10-05T08:00:00Z", currency: "EUR", email: "a@example.com", balance: "60.00", marketId: "gid://shopify/Market/1", lines: [{ variant: 4, product: 40, quantity: 1, price: "80.00", offerId: offerB }] });
  // 4: cancelled: listed by status, summed nowhere.
  await seedPreorderOrder(env.app.pool, env.shopId, { createdAt: "2026-09-15T08:00:00Z", email: "c@example.com", cancelledAt: "2026-09-15T08:00:00Z", marketId: "gid://shopify/Market/1", lines: [{ variant: 1, product: 10, quantity: 5, price: "20.00", offerId: offerA }] });
});

const read = (path: string, key = env.key) => invoke(env.app, "GET", `/preorders/reports/${path}`, { key });

interface Metrics {
  orders: number;
  units: number;
  gross_sales: string;
  deposits_paid: string;
  balance_due: string;
  balance_collected: string;
  balance_outstanding: string;
}

const USD: Metrics = { orders: 2, units: 6, gross_sales: "130.00", deposits_paid: "50.00", balance_due: "50.00", balance_collected: "0.00", balance_outstanding: "50.00" };
const EUR: Metrics = { orders: 1, units: 1, gross_sales: "80.00", deposits_paid: "20.00", balance_due: "60.00", balance_collected: "60.00", balance_outstanding: "0.00" };

async function exportRows(body: unknown): Promise<Record<string, string>[]> {
  const answer = await invoke(env.app, "POST", "/preorders/reports/by_offer/export", { key: env.key, body });
  expect(answer.status).toBe(202);
  const url = (answer.body as { status_url: string }).status_url.replace("/api/v2/external", "");
  const job = await waitFor("the export", async () => {
    const body = (await invoke(env.app, "GET", url, { key: env.key })).body as { status: string; result: { download_path: string } };
    return ["completed", "failed"].includes(body.status) ? body : undefined;
  });
  expect(job.status).toBe("completed");
  const text = await (await fetch(`${env.app.origin}${job.result.download_path}`, { headers: { "x-auth-token": env.key } })).text();
  const [header = "", ...lines] = text.trimEnd().split("\n");
  const columns = header.split(",");
  return lines.map((line) => Object.fromEntries(line.split(",").map((v, i) => [columns[i] ?? "", v])));
}

const cents = (v: string | undefined) => Math.round(Number(v ?? "0") * 100);

describe("GET /preorders/reports/summary", () => {
  it("sums live orders per currency and counts every order by status", async () => {
    const answer = await read("summary");
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({
      period: { from: null, to: null },
      currencies: [
        { currency: "EUR", ...EUR },
        { currency: "USD", ...USD },
      ],
      orders_by_status: { placed: 1, awaiting_balance: 1, balance_collected: 1, released: 0, fulfilled: 0, cancelled: 1, refunded: 0 },
    });
  });

  it("takes the exports' filters: period, offers, variant, currency, market", async () => {
    const september = (await read("summary?from=2026-09-01&to=2026-09-30")).body as { period: unknown; currencies: ({ currency: string } & Metrics)[] };
    expect(september.period).toEqual({ from: "2026-09-01", to: "2026-09-30" });
    expect(september.currencies).toEqual([{ currency: "USD", ...USD }]);
    const offer = (await read(`summary?offer_ids=${offerB}`)).body as { currencies: ({ currency: string } & Metrics)[] };
    expect(offer.currencies.map((c) => [c.currency, c.gross_sales])).toEqual([
      ["EUR", "80.00"],
      ["USD", "30.00"],
    ]);
    const variant = (await read("summary?variant_id=1&currency=USD&market_id=gid://shopify/Market/1")).body as { currencies: Metrics[] };
    expect(variant.currencies).toEqual([{ currency: "USD", orders: 1, units: 2, gross_sales: "60.00", deposits_paid: "30.00", balance_due: "30.00", balance_collected: "0.00", balance_outstanding: "30.00" }]);
  });

  it("refuses malformed filters (422) with the exports' messages, and shows another shop nothing", async () => {
    const answer = await read("summary?from=2026-10-01&to=2026-09-01&currency=usd&offer_id=x");
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ errors: ["offer_id must be an offer id (a UUID)", "currency must be an ISO 4217 currency code", "to must be after from"] });
    expect((await read("summary?market_id=nowhere")).body).toEqual({ errors: ["market_id must be one of the shop's markets"] });
    expect((await read("summary?granularity=day")).body).toEqual({ errors: ["granularity is not allowed"] });
    expect(((await read("summary", otherKey)).body as { currencies: unknown[] }).currencies).toEqual([]);
  });

  it("agrees with the by_offer CSV export summed per currency", async () => {
    const rows = await exportRows({ granularity: "month" });
    const summary = (await read("summary")).body as { currencies: ({ currency: string } & Metrics)[] };
    for (const total of summary.currencies) {
      const mine = rows.filter((r) => r.currency === total.currency);
      for (const metric of ["gross_sales", "deposits_paid", "balance_due", "balance_collected", "balance_outstanding"] as const) {
        expect(mine.reduce((s, r) => s + cents(r[metric]), 0), `${total.currency} ${metric}`).toBe(cents(total[metric]));
      }
      expect(mine.reduce((s, r) => s + Number(r.units), 0)).toBe(total.units);
    }
  });

  it("agrees with the by_offer CSV's per-line rows (granularity none), which list the cancelled order with nothing sold", async () => {
    const rows = await exportRows({});
    // Every line is listed, the cancelled order's with its status and zero metrics.
    expect(rows.map((r) => r.status)).toEqual(["awaiting_balance", "awaiting_balance", "cancelled", "placed", "balance_collected"]);
    const metrics = ["units", "gross_sales", "deposits_paid", "balance_due", "balance_collected", "balance_outstanding"] as const;
    expect(rows.filter((r) => r.status === "cancelled").map((r) => metrics.map((m) => r[m]))).toEqual([["0", "0.00", "0.00", "0.00", "0.00", "0.00"]]);
    const summary = (await read("summary")).body as { currencies: ({ currency: string } & Metrics)[] };
    expect(summary.currencies.map((c) => c.currency)).toEqual([...new Set(rows.map((r) => r.currency))].sort());
    for (const total of summary.currencies) {
      const mine = rows.filter((r) => r.currency === total.currency);
      for (const metric of ["gross_sales", "deposits_paid", "balance_due", "balance_collected", "balance_outstanding"] as const) {
        expect(mine.reduce((s, r) => s + cents(r[metric]), 0), `${total.currency} ${metric}`).toBe(cents(total[metric]));
      }
      expect(mine.reduce((s, r) => s + Number(r.units), 0), `${total.currency} units`).toBe(total.units);
    }
    // The same per offer (revenue) and per variant (by_variant), and under a filter.
    const revenue = (await read("revenue")).body as { revenue: ({ offer_id: string; currency: string } & Metrics)[] };
    for (const row of revenue.revenue) {
      const mine = rows.filter((r) => r.offer_id === row.offer_id && r.currency === row.currency);
      expect(mine.reduce((s, r) => s + cents(r.gross_sales), 0), `${row.offer_id} ${row.currency}`).toBe(cents(row.gross_sales));
    }
    const filtered = await exportRows({ offer_id: offerA, from: "2026-09-01", to: "2026-09-30" });
    const offerSummary = (await read(`summary?offer_id=${offerA}&from=2026-09-01&to=2026-09-30`)).body as { currencies: ({ currency: string } & Metrics)[] };
    expect(filtered.reduce((s, r) => s + cents(r.gross_sales), 0)).toBe(cents(offerSummary.currencies[0]?.gross_sales));
    expect(filtered.reduce((s, r) => s + Number(r.units), 0)).toBe(offerSummary.currencies[0]?.units);
  });
});

describe("GET /preorders/reports/revenue, by_date, by_variant, customers", () => {
  it("revenue: per offer and currency, the same as the by_offer export summed over its periods", async () => {
    const answer = await read("revenue");
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const body = answer.body as { revenue: ({ offer_id: string; offer_name: string; currency: string } & Metrics)[]; total: number };
    expect(body.total).toBe(3);
    const exported = await exportRows({ granularity: "month" });
    for (const row of body.revenue) {
      const mine = exported.filter((r) => r.offer_id === row.offer_id && r.currency === row.currency);
      expect(mine.reduce((s, r) => s + cents(r.gross_sales), 0)).toBe(cents(row.gross_sales));
      expect(mine.reduce((s, r) => s + cents(r.deposits_paid), 0)).toBe(cents(row.deposits_paid));
      expect(mine.reduce((s, r) => s + Number(r.orders), 0)).toBe(row.orders);
    }
    expect(body.revenue.find((r) => r.offer_id === offerA)).toEqual({ offer_id: offerA, offer_name: "Offer A", currency: "USD", ...USD, orders: 1, units: 3, gross_sales: "100.00", deposits_paid: "50.00" });
  });

  it("by_date: per period and currency, as the export with that granularity", async () => {
    const days = (await read("by_date")).body as { periods: ({ period_start: string; currency: string } & Metrics)[] };
    expect(days.periods.map((p) => [p.period_start, p.currency, p.gross_sales])).toEqual([
      ["2026-09-10", "USD", "100.00"],
      ["2026-09-20", "USD", "30.00"],
      ["2026-10-05", "EUR", "80.00"],
    ]);
    const months = (await read("by_date?granularity=month")).body as { periods: ({ period_start: string; currency: string } & Metrics)[] };
    const exported = await exportRows({ granularity: "month" });
    expect(months.periods.map((p) => [p.period_start, p.currency, p.orders, p.units, p.gross_sales, p.balance_outstanding])).toEqual([
      ["2026-09-01", "USD", 2, 6, "130.00", "50.00"],
      ["2026-10-01", "EUR", 1, 1, "80.00", "0.00"],
    ]);
    for (const period of months.periods) {
      const mine = exported.filter((r) => r.period_start === period.period_start && r.currency === period.currency);
      expect(mine.reduce((s, r) => s + cents(r.gross_sales), 0)).toBe(cents(period.gross_sales));
    }
    expect((await read("by_date?granularity=year")).body).toEqual({ errors: ["granularity must be one of: day, week, month"] });
  });

  it("by_variant: per variant, with its title from the mirror; pages by cursor", async () => {
    const first = (await read("by_variant?per_page=2")).body as { variants: { variant_id: string; title: string | null; product_title: string | null; units: number }[]; next_cursor: string; total: number };
    expect(first.total).toBe(4);
    expect(first.variants.map((v) => [v.variant_id, v.units])).toEqual([
      ["gid://shopify/ProductVariant/1", 2],
      ["gid://shopify/ProductVariant/2", 1],
    ]);
    expect(first.variants[0]).toMatchObject({ title: "Small", product_title: "Jacket" });
    expect(first.variants[1]).toMatchObject({ title: null, product_title: null });
    const second = (await read(`by_variant?per_page=2&cursor=${first.next_cursor}`)).body as { variants: { variant_id: string; currency: string }[]; next_cursor: null; page: null };
    expect(second).toMatchObject({ page: null, next_cursor: null });
    expect(second.variants.map((v) => [v.variant_id, v.currency])).toEqual([
      ["gid://shopify/ProductVariant/4", "EUR"],
      ["gid://shopify/ProductVariant/4", "USD"],
    ]);
  });

  it("customers: per e-mail and currency, with first and last preorder", async () => {
    const body = (await read("customers")).body as { customers: ({ email: string; currency: string; first_order_at: string; last_order_at: string } & Metrics)[] };
    expect(body.customers.map((c) => [c.email, c.currency, c.orders, c.balance_outstanding])).toEqual([
      ["a@example.com", "EUR", 1, "0.00"],
      ["a@example.com", "USD", 1, "50.00"],
      ["b@example.com", "USD", 1, "0.00"],
    ]);
    expect(body.customers[1]).toMatchObject({ first_order_at: "2026-09-10T08:00:00.000Z", last_order_at: "2026-09-10T08:00:00.000Z" });
    expect((await read("customers?page=1&cursor=abc")).status).toBe(422);
  });
});
