import { describe, expect, it } from "vitest";
import type { JobRow } from "../src/core/jobs.ts";
import { CHUNK_BYTES } from "../src/exports/chunks.ts";
import { openExport, saveCsvExport } from "../src/exports/store.ts";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { waitFor } from "./helpers/wait.ts";

/** Every CSV export is stored the same way: chunk by chunk in export_chunks, never as one string. */
const env = useTestEnv({ shop: "CSV shop", worker: true });

async function storage(exportId: string): Promise<{ inline: number; chunks: number; chunked: number }> {
  const { rows } = await env.pool.query<{ inline: number; chunks: number; chunked: number }>(
    `select octet_length(e.bytes) as inline, count(c.seq)::int as chunks, coalesce(sum(octet_length(c.bytes)), 0)::int as chunked
     from exports e left join export_chunks c on c.export_id = e.id where e.id = $1 group by e.id`,
    [exportId],
  );
  const row = rows[0];
  if (!row) throw new Error(`no export ${exportId}`);
  return row;
}

describe("CSV exports go through the chunked export store", () => {
  it("a back-in-stock report export is written to export_chunks, like the preorder exports", async () => {
    const answer = await invoke(env.app, "POST", "/back_in_stock/reports/export", { key: env.key, body: { report: "summary", from: "2026-01-01", to: "2026-01-31" } });
    expect(answer.status).toBe(202);
    const { job_id: jobId } = answer.body as { job_id: string };
    const job = await waitFor("the export job", async () => {
      const { rows } = await env.pool.query<JobRow>("select * from jobs where id = $1", [jobId]);
      const row = rows[0];
      if (row?.status === "failed") throw new Error(`export failed: ${JSON.stringify(row.errors)}`);
      return row?.status === "completed" ? row : undefined;
    });
    const result = job.result as { export_id: string; download_path: string; rows: number; bytes: number };
    const stored = await storage(result.export_id);
    expect(stored).toMatchObject({ inline: 0, chunks: 1 });
    expect(result).toMatchObject({ rows: 1, bytes: stored.chunked });
    const response = await fetch(`${env.app.origin}${result.download_path}`, { headers: { "x-auth-token": env.key } });
    expect(response.status).toBe(200);
    const csv = await response.text();
    expect(csv.split("\n")[0]).toBe("from,to,signups,pending,notified,conversions,conversion_rate,unsubscribed,recovered_revenue");
    expect(Buffer.byteLength(csv)).toBe(stored.chunked);
  });

  it("a CSV larger than one chunk is split across chunks as it is produced, from rows that arrive one by one", async () => {
    const count = 30_000;
    async function* rows(): AsyncGenerator<Record<string, unknown>> {
      for (let i = 0; i < count; i++) yield { id: i, name: `row "${String(i)}", quoted`, at: new Date(Date.UTC(2026, 0, 1)), ok: i % 2 === 0 };
    }
    const saved = await saveCsvExport(env.pool, { shopId: env.shopId, filename: "big.csv", columns: ["id", "name", "at", "ok"], rows: rows() });
    expect(saved.rows).toBe(count);
    const stored = await storage(saved.id);
    expect(stored.inline).toBe(0);
    expect(stored.chunked).toBe(saved.byte_size);
    expect(stored.chunks).toBe(Math.ceil(saved.byte_size / CHUNK_BYTES));
    expect(stored.chunks).toBeGreaterThan(1);
    // Compressed with lz4 where the server has it (sql/105), stored as written where it has not.
    const { rows: methods } = await env.pool.query<{ lz4: boolean; method: string | null; stored: number }>(
      `select exists (select 1 from pg_settings where name = 'default_toast_compression' and 'lz4' = any(enumvals)) as lz4,
              pg_column_compression(c.bytes) as method, pg_column_size(c.bytes) as stored
       from export_chunks c where c.export_id = $1 and c.seq = 0`,
      [saved.id],
    );
    const first = methods[0];
    if (first?.lz4) {
      expect(first).toMatchObject({ method: "lz4" });
      expect(first.stored).toBeLessThan(CHUNK_BYTES / 2);
    } else expect(first).toMatchObject({ method: null, stored: expect.any(Number) as number });
    const { rows: lines } = await env.pool.query<{ head: string }>(
      "select convert_from(bytes, 'UTF8') as head from export_chunks where export_id = $1 and seq = 0",
      [saved.id],
    );
    expect(lines[0]?.head.split("\n").slice(0, 2)).toEqual(["id,name,at,ok", '0,"row ""0"", quoted",2026-01-01T00:00:00.000Z,true']);
  });

  it("writes text that starts like a spreadsheet formula as text (a leading '), numbers as they are", async () => {
    const rows = [
      { name: '=HYPERLINK("https://attacker.example","Open")', amount: "-2.50" },
      { name: "+1+1", amount: -3 },
      { name: "-2+3", amount: "+4" },
      { name: "@SUM(A1)", amount: "1e3" },
      { name: "\tcmd", amount: "0.5" },
      { name: "plain = text", amount: ".5" },
    ];
    const saved = await saveCsvExport(env.pool, { shopId: env.shopId, filename: "formulas.csv", columns: ["name", "amount"], rows });
    const { rows: stored } = await env.pool.query<{ csv: string }>("select convert_from(bytes, 'UTF8') as csv from export_chunks where export_id = $1 and seq = 0", [saved.id]);
    expect(stored[0]?.csv.trimEnd().split("\n")).toEqual([
      "name,amount",
      `"'=HYPERLINK(""https://attacker.example"",""Open"")",-2.50`,
      "'+1+1,-3",
      "'-2+3,+4",
      "'@SUM(A1),1e3",
      "'\tcmd,0.5",
      "plain = text,.5",
    ]);
  });

  it("a download is read chunk by chunk as it is sent, with its length; a file pruned meanwhile ends it with an error, not short", async () => {
    async function* rows(): AsyncGenerator<Record<string, unknown>> {
      for (let i = 0; i < 60_000; i++) yield { id: i, name: `row ${String(i)} of a file larger than two chunks` };
    }
    const saved = await saveCsvExport(env.pool, { shopId: env.shopId, filename: "download.csv", columns: ["id", "name"], rows: rows() });
    expect((await storage(saved.id)).chunks).toBeGreaterThan(2);
    const { rows: whole } = await env.pool.query<{ bytes: Buffer }>("select string_agg(bytes, ''::bytea order by seq) as bytes from export_chunks where export_id = $1", [saved.id]);

    const response = await fetch(`${env.app.origin}${saved.download_path}`, { headers: { "x-auth-token": env.key } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-length")).toBe(String(saved.byte_size));
    expect(Buffer.from(await response.arrayBuffer()).equals(whole[0]?.bytes ?? Buffer.alloc(0))).toBe(true);

    // Opened, then a chunk goes (as the retention prune removes files): the bytes are read after the
    // open, so the stream notices, and fails instead of passing a short file off as whole.
    const opened = await openExport(env.pool, env.shopId, saved.id);
    if (!opened) throw new Error("the export did not open");
    expect(opened.byte_size).toBe(saved.byte_size);
    await env.pool.query("delete from export_chunks where export_id = $1 and seq = 1", [saved.id]);
    const read = async () => {
      for await (const piece of opened.stream) void piece;
    };
    await expect(read()).rejects.toThrow(/changed while it was read/);
  });

  it("a source that fails leaves no export behind", async () => {
    async function* failing(): AsyncGenerator<Record<string, unknown>> {
      yield { id: 1 };
      throw new Error("source broke");
    }
    await expect(saveCsvExport(env.pool, { shopId: env.shopId, filename: "broken.csv", columns: ["id"], rows: failing() })).rejects.toThrow("source broke");
    const { rows } = await env.pool.query("select 1 from exports where filename = 'broken.csv'");
    expect(rows).toEqual([]);
  });
});
