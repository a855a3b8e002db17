import pg from "pg";
import { to as copyTo } from "pg-copy-streams";
import { csvTextSql } from "./csv-text.ts";

/**
 * CSV written by PostgreSQL: `COPY (query) TO STDOUT (FORMAT csv, HEADER)`, its bytes handed on as
 * they arrive (pg-copy-streams), never turned into rows, strings or JavaScript values. The query
 * is wrapped so that every cell follows the same rule as the CSV exports built in JavaScript
 * (csv-text.ts): a cell starting like a formula gets a leading `'`, an empty string is written as
 * nothing. COPY's quoting (a cell holding a comma, a quote, CR or LF is quoted, quotes doubled)
 * and line ends (LF) are csv-stringify's, so the file is byte for byte the one csv-stringify would
 * have written from the same rows.
 */

/**
 * `sql` with its parameters (`$1` ... in `values`) written in as literals: COPY takes none. A
 * literal is of unknown type until its context types it, as a parameter is, so the plan is the
 * same. Arrays become `array[...]` (their context casts them: `any($1::uuid[])`).
 */
export function inlineParameters(sql: string, values: readonly unknown[]): string {
  const literal = (value: unknown): string => {
    if (value === null || value === undefined) return "null";
    if (value instanceof Date) return pg.escapeLiteral(value.toISOString());
    if (typeof value === "string") return pg.escapeLiteral(value);
    if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return pg.escapeLiteral(String(value));
    throw new Error("inlineParameters takes strings, numbers, booleans, dates and arrays of them");
  };
  return sql.replace(/\$(\d+)/g, (_m, n: string) => {
    const index = Number(n) - 1;
    if (index >= values.length) throw new Error(`no value for $${n}`);
    const value = values[index];
    return Array.isArray(value) ? `array[${value.map(literal).join(", ")}]` : literal(value);
  });
}

/**
 * `sql` (any SELECT, its columns named `columns`, in that order) with each cell made safe for a
 * spreadsheet, but for the columns in `asIs`: those the caller knows the rule leaves unchanged
 * (numbers, uuids, timestamps formatted by PostgreSQL), passed through without its cost.
 */
export function csvSafeSelect(sql: string, columns: readonly string[], asIs: readonly string[] = []): string {
  const cells = columns.map((column) => {
    const name = `"${column.replaceAll('"', '""')}"`;
    return asIs.includes(column) ? `r.${name}` : `${csvTextSql(`r.${name}`)} as ${name}`;
  });
  // The inner query's ORDER BY keeps the subquery from being flattened: its rows come out in its order.
  return `select ${cells.join(", ")} from (${sql}) r`;
}

/**
 * Counts the records of a CSV as its bytes pass, across pieces: a line feed ends a record unless
 * it is inside quotes (a quoted cell's `""` toggles twice, so it changes nothing).
 */
export class CsvRecordCounter {
  #records = 0;
  #quoted = false;

  get records(): number {
    return this.#records;
  }

  add(piece: Buffer): void {
    for (let at = 0; at < piece.length; ) {
      const quote = piece.indexOf(0x22, at);
      const end = quote === -1 ? piece.length : quote;
      if (!this.#quoted) {
        for (let lf = piece.indexOf(0x0a, at); lf !== -1 && lf < end; lf = piece.indexOf(0x0a, lf + 1)) this.#records++;
      }
      if (quote === -1) return;
      this.#quoted = !this.#quoted;
      at = quote + 1;
    }
  }
}

interface CopyCsvResult {
  /** Data rows (COPY's own count), the header not counted. */
  rows: number;
  bytes: number;
}

/**
 * Runs `COPY (select) TO STDOUT (FORMAT csv, HEADER)` on `client` (inside whatever transaction it
 * has open) and hands each piece of the CSV to `write` as it arrives, awaiting it: a slow writer
 * holds the COPY back (the socket's backpressure) rather than letting the file pile up in memory.
 * `rows` is called with the data rows seen so far after each piece. `select` takes no parameters
 * (COPY does not): write them in as literals.
 */
export async function copyCsv(
  client: pg.PoolClient,
  select: string,
  write: (csv: Buffer) => Promise<void>,
  rows?: (seen: number) => Promise<void>,
): Promise<CopyCsvResult> {
  const stream = client.query(copyTo(`copy (${select}) to stdout (format csv, header)`));
  const counter = new CsvRecordCounter();
  let bytes = 0;
  for await (const piece of stream as AsyncIterable<Buffer>) {
    bytes += piece.length;
    counter.add(piece);
    await write(piece);
    if (rows) await rows(Math.max(counter.records - 1, 0));
  }
  // COPY's row count arrives in its CommandComplete, after the last byte: a query queued behind it
  // on the same client answers once that has been read.
  await client.query("select 1");
  return { rows: stream.rowCount, bytes };
}
