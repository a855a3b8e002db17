import { z } from "zod";
import { defineAction } from "../../core/action.ts";
import { notFound } from "../../core/errors.ts";
import { RawResponse } from "../../core/raw-response.ts";
import { openExport } from "../store.ts";

export const downloadExport = defineAction({
  name: "exports.download",
  method: "GET",
  path: "/exports/{export_id}",
  description:
    "Downloads a file produced by an export job (a report's CSV, for example), as the file itself with its content type (text/csv) and an attachment filename, not JSON. The export job's result carries the path (download_path). Only the shop that ran the export can download it; a file goes away with its job after the job retention period.",
  notes: [
    "The answer is the file's bytes with Content-Type text/csv and Content-Disposition attachment, not a JSON object; through MCP it comes back as text.",
    "Wait for the export job to be completed (GET /jobs/{job_id}) before downloading: until then, and for another shop's export, 404 Export not found: <id>.",
  ],
  aliases: ["download an exported csv file", "get the csv of a finished report export"],
  output: z.string().describe("the CSV file itself, with a header line").meta({ contentMediaType: "text/csv" }),
  kind: "read",
  params: z.object({ export_id: z.string() }),
  input: z.strictObject({}),
  async handler(ctx, { params }) {
    const file = await openExport(ctx.pool, ctx.shopId, params.export_id);
    if (!file) throw notFound("Export", params.export_id);
    return new RawResponse(file.stream, file.content_type, file.filename, file.byte_size);
  },
});
