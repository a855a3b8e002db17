import type pg from "pg";
import { rollbackFailed } from "../core/db.ts";
import type { ExportRecord, SaveExportOptions } from "./records.ts";

/**
 * Large exports, written as they are produced: the file's bytes go to `export_chunks` (about
 * CHUNK_BYTES each, in order) under an `exports` row whose own `bytes` stay empty, so no process
 * ever holds the whole file. Everything is written in one transaction on a connection of its
 * own: the file appears, complete, at commit, and a failed attempt leaves nothing behind.
 */

export const CHUNK_BYTES = 1 << 20;

/** What saveExport takes, but for the body, which is written chunk by chunk. */
type ChunkedExportOptions = Omit<SaveExportOptions, "body" | "jobId"> & { jobId: string | null };

export class ChunkedExportWriter {
  readonly #client: pg.PoolClient;
  readonly #exportId: string;
  readonly #createdAt: Date;
  readonly #options: ChunkedExportOptions;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #seq = 0;
  #bytes = 0;
  #done = false;
  #inFlight: Promise<void> = Promise.resolve();

  private constructor(client: pg.PoolClient, exportId: string, createdAt: Date, options: ChunkedExportOptions) {
    this.#client = client;
    this.#exportId = exportId;
    this.#createdAt = createdAt;
    this.#options = options;
  }

  static async open(pool: pg.Pool, options: ChunkedExportOptions): Promise<ChunkedExportWriter> {
    const client = await pool.connect();
    try {
      await client.query("begin");
      if (options.jobId) await client.query("delete from exports where job_id = $1 and filename = $2", [options.jobId, options.filename]);
      const { rows } = await client.query<{ id: string; created_at: Date }>(
        `insert into exports (shop_id, job_id, filename, content_type, bytes) values ($1, $2, $3, $4, ''::bytea) returning id, created_at`,
        [options.shopId, options.jobId, options.filename, options.contentType],
      );
      const row = rows[0];
      if (!row) throw new Error("export insert returned no row");
      return new ChunkedExportWriter(client, row.id, row.created_at, options);
    } catch (error) {
      client.release(await rollbackFailed(client));
      throw error;
    }
  }

  get exportId(): string {
    return this.#exportId;
  }

  get bytesWritten(): number {
    return this.#bytes + this.#pendingBytes;
  }

  /**
   * Buffers `data`. A full chunk is sent at once and written while the caller produces the next;
   * at most one chunk is in flight, so a slow database slows the caller instead of filling memory.
   */
  async write(data: Buffer | string): Promise<void> {
    const buffer = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    if (buffer.length === 0) return;
    this.#pending.push(buffer);
    this.#pendingBytes += buffer.length;
    if (this.#pendingBytes >= CHUNK_BYTES) {
      await this.#inFlight;
      this.#inFlight = this.#flush();
      // Awaited by the next write or by finish; until then a failure must not count as unhandled.
      this.#inFlight.catch(() => undefined);
    }
  }

  async #flush(): Promise<void> {
    if (this.#pendingBytes === 0) return;
    const chunk = this.#pending.length === 1 ? (this.#pending[0] as Buffer) : Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#bytes += chunk.length;
    this.#pendingBytes = 0;
    await this.#client.query("insert into export_chunks (export_id, seq, bytes) values ($1, $2, $3)", [this.#exportId, this.#seq++, chunk]);
  }

  /** Writes what is buffered and commits: the file is there for download from now on. */
  async finish(): Promise<ExportRecord> {
    try {
      await this.#inFlight;
      await this.#flush();
      await this.#client.query("commit");
    } catch (error) {
      await this.abort();
      throw error;
    }
    this.#done = true;
    this.#client.release();
    return {
      id: this.#exportId,
      shop_id: this.#options.shopId,
      job_id: this.#options.jobId,
      filename: this.#options.filename,
      content_type: this.#options.contentType,
      byte_size: this.#bytes,
      created_at: this.#createdAt,
    };
  }

  /** Rolls everything back (nothing of the file stays). Safe to call after finish. */
  async abort(): Promise<void> {
    if (this.#done) return;
    this.#done = true;
    await this.#inFlight.catch(() => undefined);
    this.#client.release(await rollbackFailed(this.#client));
  }
}
