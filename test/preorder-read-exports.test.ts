import { beforeAll, describe, expect, it } from "vitest";
import { ACTIONS } from "../src/action-registry.ts";
import { toolCatalog } from "../src/mcp/tools.ts";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { seedOffer, seedPreorderOrder } from "./helpers/preorders.ts";
import { waitFor } from "./helpers/wait.ts";

/**
 * The CSV export of each JSON preorder report read (issue 31, decision 0245): POST
 * /preorders/reports/{summary,revenue,by_date,by_variant,customers}/export takes the read's query
 * as a JSON body, runs as an export job and writes the read's rows, field for field; a body the
 * read refuses is refused with the read's 422.
 */

const env = useTestEnv({ shop: "Read Exports Shop", worker: true });
let offerA = "";
let offerB = "";

beforeAll(async () => {
  await env.app.pool.query("insert into markets (shop_id, id, name) values ($1, 'gid://shopify/Market/1', 'US')", [env.shopId]);
  // A product title with a comma and quotes: the CSV quotes it, the parsed cell is the read's.
  await env.app.pool.query(
    `insert into products (shop_id, id, title, handle, status, platform_updated_at) values ($1, 'gid://shopify/Product/10', 'Jacket, "Winter"', 'jacket', 'ACTIVE', now())`,
    [env.shopId],
  );
  await env.app.pool.query(
    `insert into variants (shop_id, id, legacy_id, product_id, title, price, inventory_policy, inventory_item_id, platform_updated_at)
     values ($1, 'gid://shopify/ProductVariant/1', 1, 'gid://shopify/Product/10', 'Small', 30, 'DENY', 'gid://shopify/InventoryItem/1', now())`,
    [env.shopId],
  );
  offerA = await seedOffer(env.app.pool, env.shopId, "Offer A");
  offerB = await seedOffer(env.app.pool, env.shopId, "Offer B");
  const market = "gid://shopify/Market/1";
  // A half-paid deposit order, two lines of offer A.
  await seedPreorderOrder(env.app.pool, env.shopId, { createdAt: "2026-09-10T08:00:00Z", email: "a@example.com", outstanding: "50.00", financialStatus: "paid", marketId: market, lines: [{ variant: 1, product: 10, quantity: 2, price: "30.00", offerId: offerA }, { variant: 2, product: 20, quantity: 1, price: "40.00", offerId: offerA }] });
  // Paid in full, offer B, and a line on a selling plan no offer has (offer_id null), no e-mail.
  await seedPreorderOrder(env.app.pool, env.shopId, { createdAt: "2026-09-20T08:00:00Z", marketId: market, lines: [{ variant: 4, product: 40, quantity: 3, price: "10.00", offerId: offerB }, { variant: 5, product: 50, quantity: 1, price: "5.50", sellingPlan: 99 }] });
  // EUR, deposit then balance collected, offer B, in October.
  await seedPreorderOrder(env.app.pool, env.shopId, { createdAt: "2026-10-05T08:00:00Z", currency: "EUR", email: "a@example.com", balance: "60.00", marketId: market, lines: [{ variant: 4, product: 40, quantity: 1, price: "80.00", offerId: offerB }] });
  // Cancelled: counted by status, summed nowhere.
  await seedPreorderOrder(env.app.pool, env.shopId, { createdAt: "2026-09-15T08:00:00Z", email: "c@example.com", cancelledAt: "2026-09-15T08:00:00Z", marketId: market, lines: [{ variant: 1, product: 10, quantity: 5, price: "20.00", offerId: offerA }] });
});

type Body = Record<string, string | number | string[]>;

/** The read's query for an export body: lists comma-separated. */
function queryOf(body: Body): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(body)) params.set(key, Array.isArray(value) ? value.join(",") : String(value));
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

const read = (report: string, body: Body) => invoke(env.app, "GET", `/preorders/reports/${report}${queryOf(body)}`, { key: env.key });
const post = (report: string, body: unknown) => invoke(env.app, "POST", `/preorders/reports/${report}/export`, { key: env.key, body });

interface ExportJob {
  status: string;
  ready: boolean;
  progress: number;
  total: number | null;
  processed: number;
  errors: unknown[];
  result: { report: string; download_path: string; rows: number; filename: string; content_type: string };
}

/** RFC 4180 as COPY writes it: quoted cells (quotes doubled) may hold commas, quotes and line ends. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") {
      record.push(cell);
      cell = "";
    } else if (char === "\n") {
      record.push(cell);
      records.push(record);
      record = [];
      cell = "";
    } else cell += char;
  }
  expect(cell === "" && record.length === 0, "the CSV ends with a line end").toBe(true);
  return records;
}

/** Runs the export through the worker and downloads its CSV: the header and the rows. */
async function exportCsv(report: string, body: unknown): Promise<{ header: string[]; rows: string[][]; job: ExportJob }> {
  const answer = await post(report, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  const { status_url: statusUrl } = answer.body as { status_url: string };
  const job = await waitFor(`the ${report} export to finish`, async () => {
    const j = (await invoke(env.app, "GET", statusUrl.replace("/api/v2/external", ""), { key: env.key })).body as ExportJob;
    return ["completed", "failed", "cancelled"].includes(j.status) ? j : undefined;
  });
  expect(job, JSON.stringify(job.errors)).toMatchObject({ status: "completed", ready: true, progress: 100, errors: [], result: { report, content_type: "text/csv; charset=utf-8" } });
  expect(job.result.filename).toMatch(new RegExp(`^preorders-${report.replaceAll("_", "-")}-\\d{8}-\\d{6}[.]csv$`));
  const response = await fetch(`${env.app.origin}${job.result.download_path}`, { headers: { "x-auth-token": env.key } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  const [header = [], ...rows] = parseCsv(await response.text());
  expect(job.result.rows).toBe(rows.length);
  expect(job.total).toBe(rows.length);
  return { header, rows, job };
}

/** The fields of a grouped read's items, in order, as its response schema (the MCP tool's outputSchema) has them. */
function itemFields(report: string, key: string): string[] {
  const schema = toolCatalog(ACTIONS).tools.find((t) => t.name === `preorders_reports_${report}`)?.outputSchema as { properties: Record<string, { items: { properties: object } }> } | undefined;
  return Object.keys(schema?.properties[key]?.items.properties ?? {});
}

/** A read's value as its CSV cell: null is an empty cell, a number its digits. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

const GROUPED: [string, string, Body[]][] = [
  ["revenue", "revenue", [{}, { currency: "USD" }, { offer_ids: [offerPlaceholder("A"), offerPlaceholder("B")], from: "2026-09-01", to: "2026-09-30" }]],
  ["by_date", "periods", [{}, { granularity: "week" }, { granularity: "month", market_id: "1" }]],
  ["by_variant", "variants", [{}, { product_id: 10 }, { variant_id: "gid://shopify/ProductVariant/4", currency: "EUR" }]],
  ["customers", "customers", [{}, { offer_id: offerPlaceholder("A") }, { from: "2026-10-01" }]],
];

/** Offer ids exist only once beforeAll ran: bodies name them by letter. */
function offerPlaceholder(letter: "A" | "B"): string {
  return `<offer ${letter}>`;
}
function resolved(body: Body): Body {
  const swap = (v: string) => (v === offerPlaceholder("A") ? offerA : v === offerPlaceholder("B") ? offerB : v);
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, Array.isArray(v) ? v.map(swap) : typeof v === "string" ? swap(v) : v]));
}

describe("CSV exports of the JSON report reads", () => {
  it.each(GROUPED)("%s: the CSV's header is the read's row fields and its rows the read's rows, for every body", async (report, key, bodies) => {
    const fields = itemFields(report, key);
    expect(fields.length).toBeGreaterThan(7);
    for (const body of bodies.map(resolved)) {
      const answer = await read(report, { ...body, per_page: 250 });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const json = answer.body as Record<string, unknown> & { next_cursor: string | null };
      expect(json.next_cursor).toBeNull();
      const items = json[key] as Record<string, unknown>[];
      const { header, rows } = await exportCsv(report, body);
      expect(header, `${report} ${JSON.stringify(body)}`).toEqual(fields);
      expect(rows, `${report} ${JSON.stringify(body)}`).toEqual(items.map((item) => header.map((field) => cell(item[field]))));
    }
  });

  it("the grouped reads' data is what the CSVs are checked on: nulls, two currencies, a quoted title", async () => {
    const revenue = await exportCsv("revenue", {});
    const byteOrder = (a: string[], b: string[]) => Buffer.compare(Buffer.from(`${a[0] ?? ""}\u0000${a[1] ?? ""}`), Buffer.from(`${b[0] ?? ""}\u0000${b[1] ?? ""}`));
    expect(revenue.rows.map((r) => [r[0], r[2], r[5]])).toEqual(
      [
        ["", "USD", "5.50"],
        [offerA, "USD", "100.00"],
        [offerB, "EUR", "80.00"],
        [offerB, "USD", "30.00"],
      ].sort(byteOrder),
    );
    const variants = await exportCsv("by_variant", {});
    expect(variants.rows[0]?.slice(0, 5)).toEqual(["gid://shopify/ProductVariant/1", "gid://shopify/Product/10", "Small", 'Jacket, "Winter"', "USD"]);
    const customers = await exportCsv("customers", {});
    expect(customers.rows.map((r) => [r[0], r[1]])).toEqual([
      ["", "USD"],
      ["a@example.com", "EUR"],
      ["a@example.com", "USD"],
    ]);
  });

  it("a paged body gives the page the read answers for it, by page or by cursor", async () => {
    for (const [report, key] of GROUPED) {
      const page = (await read(report, { per_page: 2, page: 2 })).body as Record<string, Record<string, unknown>[]>;
      const paged = await exportCsv(report, { per_page: 2, page: 2 });
      expect(paged.rows, report).toEqual((page[key] ?? []).map((item) => paged.header.map((field) => cell(item[field]))));
      const first = (await read(report, { per_page: 1 })).body as { next_cursor: string };
      const next = (await read(report, { per_page: 1, cursor: first.next_cursor })).body as Record<string, Record<string, unknown>[]>;
      const byCursor = await exportCsv(report, { per_page: 1, cursor: first.next_cursor });
      expect(byCursor.rows, report).toEqual((next[key] ?? []).map((item) => byCursor.header.map((field) => cell(item[field]))));
      expect(byCursor.rows).toHaveLength(1);
    }
  });

  it("summary: key/value rows (section, key, currency, value) that read back as the read's answer", async () => {
    for (const body of [{}, { from: "2026-09-01", to: "2026-09-30" }, { offer_id: offerB }, { variant_id: 1, currency: "USD", market_id: "gid://shopify/Market/1" }] as Body[]) {
      const answer = await read("summary", body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const { header, rows } = await exportCsv("summary", body);
      expect(header).toEqual(["section", "key", "currency", "value"]);
      const period: Record<string, string | null> = {};
      const currencies = new Map<string, Record<string, string | number>>();
      const byStatus: Record<string, number> = {};
      for (const [section = "", key = "", currency = "", value = ""] of rows) {
        if (section === "period") period[key] = value === "" ? null : value;
        else if (section === "currencies") {
          const totals = currencies.get(currency) ?? { currency };
          totals[key] = key === "orders" || key === "units" ? Number(value) : value;
          currencies.set(currency, totals);
        } else if (section === "orders_by_status") byStatus[key] = Number(value);
        else throw new Error(`unexpected section ${section}`);
      }
      expect({ period, currencies: [...currencies.values()], orders_by_status: byStatus }, JSON.stringify(body)).toEqual(answer.body);
      // Field order too: the rows follow the read's keys.
      const json = answer.body as { currencies: Record<string, unknown>[]; orders_by_status: Record<string, number> };
      expect(rows.filter((r) => r[0] === "currencies").map((r) => `${r[2] ?? ""} ${r[1] ?? ""}`)).toEqual(json.currencies.flatMap((c) => Object.keys(c).filter((k) => k !== "currency").map((k) => `${String(c.currency)} ${k}`)));
      expect(rows.filter((r) => r[0] === "orders_by_status").map((r) => r[1])).toEqual(Object.keys(json.orders_by_status));
    }
    const all = await exportCsv("summary", {});
    expect(all.rows.slice(0, 2)).toEqual([
      ["period", "from", "", ""],
      ["period", "to", "", ""],
    ]);
    expect(all.rows).toContainEqual(["currencies", "gross_sales", "USD", "135.50"]);
    expect(all.rows).toContainEqual(["orders_by_status", "cancelled", "", "1"]);
  });

  it("refuses a body the read refuses, with the read's 422", async () => {
    const common: Body[] = [
      { from: "2026-10-01", to: "2026-09-01", currency: "usd", offer_id: "x" },
      { from: "last week" },
      { market_id: "nowhere" },
      { colour: "red" },
      { offer_ids: ["x"], product_id: "shoe" },
    ];
    const cases: [string, Body[]][] = [
      ["summary", [...common, { granularity: "day" }, { page: 1 }]],
      ["revenue", [...common, { per_page: 251, page: 0 }, { page: 1, cursor: "abc" }, { granularity: "day" }]],
      ["by_date", [...common, { granularity: "year" }, { cursor: "abc" }]],
      ["by_variant", [...common, { per_page: 0 }]],
      ["customers", [...common, { page: 1, cursor: "abc" }]],
    ];
    for (const [report, bodies] of cases) {
      for (const body of bodies) {
        const fromRead = await read(report, body);
        expect(fromRead.status, `${report} ${JSON.stringify(body)}`).toBe(422);
        const fromExport = await post(report, body);
        expect({ status: fromExport.status, body: fromExport.body }, `${report} ${JSON.stringify(body)}`).toEqual({ status: 422, body: fromRead.body });
      }
    }
    // JSON's types: a list is an array, a page an integer.
    expect((await post("revenue", { offer_ids: offerA })).body).toEqual({ errors: ["offer_ids must be an array"] });
    expect((await post("revenue", { page: "2" })).body).toEqual({ errors: ["page must be an integer"] });
  });

  it("are MCP tools taking the read's fields, and are listed in the report catalog beside their reads", async () => {
    const catalog = toolCatalog(ACTIONS);
    for (const report of ["summary", "revenue", "by_date", "by_variant", "customers"]) {
      const tool = catalog.tools.find((t) => t.name === `preorders_reports_${report}_export`);
      const readTool = catalog.tools.find((t) => t.name === `preorders_reports_${report}`);
      expect(tool, report).toMatchObject({ title: `POST /preorders/reports/${report}/export`, annotations: { readOnlyHint: false } });
      expect(Object.keys(tool?.inputSchema.properties ?? {}), report).toEqual(Object.keys(readTool?.inputSchema.properties ?? {}));
    }
    const listed = ((await invoke(env.app, "GET", "/preorders/reports", { key: env.key })).body as { reports: { name: string }[] }).reports.map((r) => r.name);
    for (const report of ["summary", "revenue", "by_date", "by_variant", "customers"]) {
      expect(listed.indexOf(`preorders.reports.${report}.export`), report).toBe(listed.indexOf(`preorders.reports.${report}`) + 1);
    }
  });
});
