/** The shapes of the export store, apart from it so the chunked writer and the store share them. */

/** An export as stored, without its bytes. */
export interface ExportRecord {
  id: string;
  shop_id: string;
  job_id: string | null;
  filename: string;
  content_type: string;
  byte_size: number;
  created_at: Date;
}

export interface SaveExportOptions {
  shopId: string;
  /** The producing job; a retry of that job replaces its file of the same name. */
  jobId?: string | null;
  filename: string;
  contentType: string;
  body: Buffer | string;
}
