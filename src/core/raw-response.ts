import type { Readable } from "node:stream";

/**
 * What an action returns to answer something other than JSON (a CSV download, say). The
 * dispatcher sends `body` as it is with `contentType`, and an attachment `filename` when given;
 * transports that only carry text (MCP) get the body as UTF-8 text.
 */
export class RawResponse {
  /** The bytes, or a stream of them (a download larger than memory should hold at once). */
  readonly body: Buffer | Readable;
  readonly contentType: string;
  readonly filename: string | undefined;
  /** Bytes in the body (Content-Length), when known. */
  readonly length: number | undefined;

  constructor(body: Buffer | string | Readable, contentType: string, filename?: string, length?: number) {
    this.body = typeof body === "string" ? Buffer.from(body, "utf8") : body;
    this.contentType = contentType;
    this.filename = filename;
    this.length = Buffer.isBuffer(this.body) ? this.body.length : length;
  }

  /** Content-Disposition for the filename: a plain ASCII fallback and the RFC 5987 form. */
  contentDisposition(): string | undefined {
    if (this.filename === undefined) return undefined;
    const ascii = this.filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
    return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(this.filename)}`;
  }
}
