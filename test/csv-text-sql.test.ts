import { stringify } from "csv-stringify";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import type { JobRow } from "../src/core/jobs.ts";
import { CsvRecordCounter, copyCsv, csvSafeSelect } from "../src/exports/copy.ts";
import { csvText } from "../src/exports/csv-text.ts";
import { reportBody, reportQuery } from "../src/preorders/reports/query.ts";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { waitFor } from "./helpers/wait.ts";

/**
 * The preorder report exports are written by PostgreSQL (COPY ... TO STDOUT (FORMAT csv)), the
 * spreadsheet-formula rule done in SQL (csvTextSql); before, the rows came into JavaScript and
 * csv-stringify wrote them, the rule done by csvText. The files must not change: these tests hold
 * the COPY path to the bytes of the old one, on cells chosen to tell a wrong rule apart.
 */
const env = useTestEnv({ shop: "CSV COPY shop", worker: true });

/** The old path, as src/preorders/reports/stream.ts wrote a report: array rows through csv-stringify, csvText on every string. */
async function csvStringifyOf(columns: readonly string[], rows: readonly (readonly unknown[])[]): Promise<Buffer> {
  const stringifier = stringify({ cast: { string: csvText } });
  const pieces: Buffer[] = [];
  stringifier.on("data", (piece: Buffer) => pieces.push(piece));
  const ended = new Promise((resolve, reject) => stringifier.once("end", resolve).once("error", reject));
  stringifier.write(columns);
  for (const row of rows) stringifier.write(row);
  stringifier.end();
  await ended;
  return Buffer.concat(pieces);
}

async function copyOf(client: pg.PoolClient, select: string): Promise<{ csv: Buffer; rows: number; bytes: number }> {
  const pieces: Buffer[] = [];
  const result = await copyCsv(client, select, async (piece) => void pieces.push(piece));
  return { csv: Buffer.concat(pieces), ...result };
}

/** Cells that each take a different branch of the rule, of the quoting, or of the NULL/empty distinction. */
const CELLS: (string | null)[] = [
  // formulas: a leading '
  "=1+1",
  '=HYPERLINK("https://attacker.example","Open")',
  "+1+1",
  "-2+3",
  "@SUM(A1)",
  "\tcmd",
  "\rcmd",
  "\r\n=x",
  "=",
  "+",
  "-",
  "@",
  "-1 ",
  " -1",
  "-1\n",
  "--1",
  "+-1",
  "-1e",
  "-e5",
  "-1.2.3",
  "-0x1F",
  "-Infinity",
  "-NaN",
  "-١٢", // Arabic-Indic digits: not \d in JavaScript, not [0-9] in PostgreSQL
  "-１２", // full-width digits
  "'-already quoted",
  // plain numbers: as they are
  "-2.50",
  "+4",
  "-0",
  "1e3",
  "-1E+5",
  "+1e-7",
  ".5",
  "-.5",
  "5.",
  "-5.",
  "0.00",
  "-123456789012345678901234567890.12",
  // not formulas: as they are, quoted when CSV needs it
  "plain = text",
  " =leading space",
  "＝full-width equals",
  "a,b",
  'say "hi"',
  '"',
  '""',
  "line\nbreak",
  "carriage\rreturn",
  "crlf\r\n",
  "tab\tinside",
  "back\\slash",
  "\\.",
  "\\N",
  "NULL",
  "'",
  " ",
  "ünïcödé",
  "日本語",
  "😀 emoji",
  "é".normalize("NFD"),
  "gid://shopify/ProductVariant/44000000000001",
  "customer@example.com",
  "2026-01-01T00:00:00Z",
  // the empty string and NULL: both nothing
  "",
  null,
];

describe("the SQL rule (csvTextSql) writes what csvText and csv-stringify wrote", () => {
  it("cell by cell, in every column position, with NULLs and empty strings beside them", async () => {
    const columns = ["first", "middle", "last"];
    // Each cell once in each position, its neighbours other cells (a NULL or '' among them).
    const rows = CELLS.map((cell, i) => [cell, CELLS[(i + 7) % CELLS.length] ?? null, CELLS[(i + 23) % CELLS.length] ?? null]);
    const client = await env.pool.connect();
    try {
      await client.query("create temporary table cells (n int, first text, middle text, last text)");
      await client.query("insert into cells select n, a, b, c from unnest($1::text[], $2::text[], $3::text[]) with ordinality as u(a, b, c, n)", [
        rows.map((r) => r[0]),
        rows.map((r) => r[1]),
        rows.map((r) => r[2]),
      ]);
      const plain = "select first, middle, last from cells order by n";
      const { rows: fetched } = await client.query<unknown[]>({ text: plain, rowMode: "array" });
      const expected = await csvStringifyOf(columns, fetched);
      const copied = await copyOf(client, csvSafeSelect(plain, columns));
      expect(copied.csv.toString("utf8").split("\n")).toEqual(expected.toString("utf8").split("\n"));
      expect(copied.csv.equals(expected)).toBe(true);
      expect(copied).toMatchObject({ rows: CELLS.length, bytes: expected.length });

      // The cases are sharp: COPY without the rule writes other bytes, and so does a rule that
      // forgets one of its parts (the empty string, the number exception, the tab and CR, the "@").
      expect((await copyOf(client, plain)).csv.equals(expected)).toBe(false);
      const without = (select: string) => csvSafeSelect(plain, columns).replace(select, "");
      expect(csvSafeSelect(plain, columns)).toContain("nullif(");
      const wrongs = [
        csvSafeSelect(plain, columns).replaceAll(/nullif\((r\."\w+"), ''\)/g, "$1"),
        csvSafeSelect(plain, columns).replaceAll("[eE]", "[e]"),
        csvSafeSelect(plain, columns).replaceAll("[0-9]", "[0-9١-٩]"),
        without(", 9, 13"),
        csvSafeSelect(plain, columns).replaceAll("> 64", "> 63"),
      ];
      for (const wrong of wrongs) {
        expect(wrong).not.toBe(csvSafeSelect(plain, columns));
        expect((await copyOf(client, wrong)).csv.equals(expected), wrong).toBe(false);
      }
    } finally {
      client.release();
    }
  });

  it("pins the bytes of the tricky cells (so both rules cannot drift together)", async () => {
    const client = await env.pool.connect();
    try {
      const cells = ["=1+1", "-2.50", "-1 ", "\tcmd", "a,b", 'say "hi"', "line\nbreak", "", null, "-١٢", "1e3", "=a,\"b\""];
      const literals = cells.map((c) => (c === null ? "null" : client.escapeLiteral(c))).join(", ");
      const select = csvSafeSelect(`select v as value, n::text as n from unnest(array[${literals}]::text[]) with ordinality as u(v, n) order by u.n`, ["value", "n"]);
      const { csv } = await copyOf(client, select);
      expect(csv.toString("utf8")).toBe(
        ["value,n", "'=1+1,1", "-2.50,2", "'-1 ,3", "'\tcmd,4", '"a,b",5', '"say ""hi""",6', '"line\nbreak",7', ",8", ",9", "'-١٢,10", "1e3,11", `"'=a,""b""",12`, ""].join("\n"),
      );
    } finally {
      client.release();
    }
  });

  it("counts records across pieces, line feeds inside quotes not counted", () => {
    const csv = Buffer.from('h1,h2\n"a\nb",1\n"say ""x""\n",2\nplain,3\n"",4\n', "utf8");
    for (let size = 1; size <= csv.length; size++) {
      const counter = new CsvRecordCounter();
      for (let at = 0; at < csv.length; at += size) counter.add(csv.subarray(at, at + size));
      expect(counter.records, `pieces of ${size} bytes`).toBe(5);
    }
  });
});

describe("a preorder report export written by COPY is the file the old path wrote", () => {
  it("by_offer and balance_collection over orders with formulas, quotes, line breaks, unicode, NULLs and odd amounts", async () => {
    const pool = env.pool;
    const shopId = env.shopId;
    const offers: [string, string][] = [
      ["=HYPERLINK(\"https://attacker.example\",\"Open\")", "plan-1"],
      ["Offer, with a comma", "plan-2"],
      ["-5", "plan-3"],
      ["", "plan-4"],
      ["Ünïcödé 😀\nsecond line", "plan-5"],
      ["\rCR first", "plan-6"],
    ];
    const offerIds: string[] = [];
    for (const [name, plan] of offers) {
      const { rows } = await pool.query<{ id: string }>(
        "insert into preorder_offers (shop_id, name, internal_name, status, platform_selling_plan_id) values ($1, $2, $3, 'active', $4) returning id",
        [shopId, name, `internal-${plan}`, `gid://shopify/SellingPlan/${plan}`],
      );
      offerIds.push(rows[0]?.id ?? "");
    }
    const orders = [
      { name: "+1+1", email: '"quoted"@example.com', total: "33.34", outstanding: "11.11", balance: "22.22", created: "2026-03-01T10:11:12.987654Z" },
      { name: "@SUM(A1)", email: "=cmd|' /C calc'!A0", total: "0.00", outstanding: "0.00", balance: "0.00", created: "2026-03-02T00:00:00Z" },
      { name: "\tTabbed", email: null, total: "100.00", outstanding: "0.00", balance: "60.00", created: "2026-03-03T23:59:59.999999Z" },
      { name: null, email: "line\r\nbreak@example.com", total: "9999999.99", outstanding: "9999999.99", balance: "9999999.99", created: "2026-03-04T12:00:00Z" },
      { name: "", email: "", total: "7.00", outstanding: "3.50", balance: "3.50", created: "2026-03-05T12:00:00+05:30" },
    ];
    for (const [i, o] of orders.entries()) {
      const { rows } = await pool.query<{ id: string }>(
        `insert into preorder_orders (shop_id, platform_order_id, name, email, currency, total_price, total_outstanding, balance_amount, financial_status, platform_created_at, platform_updated_at, balance_requested_at)
         values ($1, $2, $3, $4, 'USD', $5, $6, $7, 'partially_paid', $8, $8, case when $7::numeric > 0 then $8::timestamptz + interval '1 hour' end) returning id`,
        [shopId, `gid://shopify/Order/${i}`, o.name, o.email, o.total, o.outstanding, o.balance, o.created],
      );
      const orderId = rows[0]?.id ?? "";
      // Three lines an order, on different offers (one on a plan no offer has yet), with odd quantities and prices.
      for (let k = 0; k < 3; k++) {
        const offer = (i + k) % (offers.length + 1);
        await pool.query(
          `insert into preorder_order_lines (order_id, shop_id, platform_line_id, variant_id, product_id, quantity, price, selling_plan_id, offer_id)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [
            orderId,
            shopId,
            `gid://shopify/LineItem/${i * 10 + k}`,
            k === 1 ? "-12" : `gid://shopify/ProductVariant/${i}${k}`,
            k === 2 ? "=product" : `gid://shopify/Product/${i}`,
            k + 1,
            ["0.01", "3.33", "12.345"][k],
            offer < offers.length ? `gid://shopify/SellingPlan/${offers[offer]?.[1] ?? ""}` : "gid://shopify/SellingPlan/unknown",
            offer < offers.length ? offerIds[offer] : null,
          ],
        );
      }
    }

    const bodies: [string, Record<string, unknown>][] = [
      ["by_offer", {}],
      ["by_offer", { granularity: "month", metrics: ["orders", "units", "gross_sales", "balance_outstanding"] }],
      ["by_offer", { granularity: "day", offer_ids: [offerIds[0], offerIds[2]] }],
      ["by_offer", { page: 2, per_page: 4 }],
      ["balance_collection", {}],
      ["balance_collection", { granularity: "week" }],
    ];
    for (const [report, body] of bodies) {
      const answer = await invoke(env.app, "POST", `/preorders/reports/${report}/export`, { key: env.key, body });
      expect(answer.status).toBe(202);
      const { job_id: jobId } = answer.body as { job_id: string };
      const job = await waitFor("the export job", async () => {
        const { rows } = await pool.query<JobRow>("select * from jobs where id = $1", [jobId]);
        const row = rows[0];
        if (row?.status === "failed") throw new Error(`export failed: ${JSON.stringify(row.errors)}`);
        return row?.status === "completed" ? row : undefined;
      });
      const result = job.result as { download_path: string; rows: number; bytes: number };
      const response = await fetch(`${env.app.origin}${result.download_path}`, { headers: { "x-auth-token": env.key } });
      const downloaded = Buffer.from(await response.arrayBuffer());

      // The old path over the same statement: its rows into JavaScript, csv-stringify with csvText.
      const query = reportQuery(report as "by_offer" | "balance_collection", reportBody.parse(body), shopId);
      const { rows: fetched } = await pool.query<unknown[]>({ text: query.sql, values: query.values, rowMode: "array" });
      const expected = await csvStringifyOf(query.columns, fetched);
      expect(downloaded.toString("utf8"), `${report} ${JSON.stringify(body)}`).toBe(expected.toString("utf8"));
      expect(downloaded.equals(expected)).toBe(true);
      expect(result).toMatchObject({ rows: fetched.length, bytes: expected.length });
      expect(job).toMatchObject({ total: fetched.length });
      expect(fetched.length).toBeGreaterThan(0);
    }
  });
});
