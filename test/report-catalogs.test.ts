import { describe, expect, it } from "vitest";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

/** The report catalogs STOQ has (issue 31: both answered 404): every report of the area, with how to ask for it. */

const env = useTestEnv({ shop: "Report Catalogs" });

interface Entry {
  name: string;
  report: string;
  method: string;
  path: string;
  description: string;
  format: string;
  async: boolean;
}

async function catalog(path: string): Promise<Entry[]> {
  const answer = await invoke(env.app, "GET", path, { key: env.key });
  expect(answer.status, path).toBe(200);
  return (answer.body as { reports: Entry[] }).reports;
}

const CATALOGS: [string, [string, string, string, string, boolean][]][] = [
  [
    "/preorders/reports",
    [
      ["summary", "GET", "/preorders/reports/summary", "json", false],
      ["summary", "POST", "/preorders/reports/summary/export", "csv", true],
      ["revenue", "GET", "/preorders/reports/revenue", "json", false],
      ["revenue", "POST", "/preorders/reports/revenue/export", "csv", true],
      ["by_date", "GET", "/preorders/reports/by_date", "json", false],
      ["by_date", "POST", "/preorders/reports/by_date/export", "csv", true],
      ["by_variant", "GET", "/preorders/reports/by_variant", "json", false],
      ["by_variant", "POST", "/preorders/reports/by_variant/export", "csv", true],
      ["customers", "GET", "/preorders/reports/customers", "json", false],
      ["customers", "POST", "/preorders/reports/customers/export", "csv", true],
      ["by_offer", "POST", "/preorders/reports/by_offer/export", "csv", true],
      ["balance_collection", "POST", "/preorders/reports/balance_collection/export", "csv", true],
    ],
  ],
  [
    "/back_in_stock/reports",
    [
      ["summary", "GET", "/back_in_stock/reports/summary", "json", false],
      ["signups", "GET", "/back_in_stock/reports/signups", "json", false],
      ["notifications", "GET", "/back_in_stock/reports/notifications", "json", false],
      ["conversions", "GET", "/back_in_stock/reports/conversions", "json", false],
      ["products_in_demand", "GET", "/back_in_stock/reports/products_in_demand", "json", false],
      ["all", "POST", "/back_in_stock/reports/export", "csv", true],
    ],
  ],
];

describe("report catalogs", () => {
  it("GET /preorders/reports and GET /back_in_stock/reports list every report of the area (a preorder read's CSV export beside it), each of the JSON ones answering at its path", async () => {
    for (const [path, expected] of CATALOGS) {
      const reports = await catalog(path);
      expect(reports.map((r) => [r.report, r.method, r.path, r.format, r.async]), path).toEqual(expected);
      for (const report of reports) expect(report.description.length, report.name).toBeGreaterThan(40);
      for (const report of reports.filter((r) => r.method === "GET")) {
        expect((await invoke(env.app, "GET", report.path, { key: env.key })).status, report.path).toBe(200);
      }
    }
  });

  it("are in help beside the reports", async () => {
    const answer = await invoke(env.app, "GET", "/back_in_stock/reports/help", { key: env.key });
    const paths = (answer.body as { actions: { method: string; path: string }[] }).actions.map((a) => `${a.method} ${a.path}`);
    expect(paths).toContain("GET /back_in_stock/reports");
    expect(paths).toContain("GET /back_in_stock/reports/summary");
  });
});
