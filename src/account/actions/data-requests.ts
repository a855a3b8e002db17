import { z } from "zod";
import { defineAction } from "../../core/action.ts";
import { jobHandle } from "../../core/jobs.ts";
import { timestampOutput } from "../../core/outputs.ts";
import { customerDataRequestJob } from "../../webhooks/lifecycle/data-request.ts";

const LIMIT = 100;

interface DataRequestRow {
  id: string;
  status: "queued" | "running" | "completed" | "failed" | "cancelled";
  payload: { data_request_id: string; customer: { id: string; email: string | null; phone: string | null }; orders_requested: string[] };
  result: { download_path?: string; filename?: string } | null;
  created_at: Date;
  finished_at: Date | null;
}

export const listDataRequests = defineAction({
  name: "account.data_requests.list",
  method: "GET",
  path: "/account/data_requests",
  description:
    "The customer data requests the store forwarded (Shopify's customers/data_request compliance webhook), newest first: data_request_id (the store's), customer (id, email, phone as the store sent them), orders_requested, status of the export job, download_path of the JSON file that holds what the service keeps about that customer (back-in-stock signups and their messages, preorder orders with their lines, rule breaks and notifications) once completed, and the job's job_id and status_url.",
  notes: [
    "Download the file with GET /exports/{export_id} (its download_path) under the shop's API key, and send it to the customer: the store expects it within 30 days.",
    `At most ${LIMIT} requests, the newest; a request is kept with its file for the jobs' retention period (30 days by default).`,
  ],
  aliases: ["list customer data requests", "download a customer data export", "gdpr data requests"],
  kind: "read",
  input: z.strictObject({}),
  output: z.strictObject({
    data_requests: z.array(
      z.strictObject({
        data_request_id: z.string(),
        customer: z.strictObject({ id: z.string(), email: z.string().nullable(), phone: z.string().nullable() }),
        orders_requested: z.array(z.string()).describe("the orders the customer asked about, as gid://shopify/Order/<id>"),
        status: z.enum(["queued", "running", "completed", "failed", "cancelled"]),
        download_path: z.string().nullable().describe("the JSON export once completed, else null"),
        job_id: z.uuid(),
        status_url: z.string(),
        requested_at: timestampOutput,
        completed_at: timestampOutput.nullable(),
      }),
    ),
  }),
  async handler(ctx) {
    const { rows } = await ctx.db.query<DataRequestRow>(
      "select id, status, payload, result, created_at, finished_at from jobs where shop_id = $1 and kind = $2 order by created_at desc, id desc limit $3",
      [ctx.shopId, customerDataRequestJob.name, LIMIT],
    );
    return {
      data_requests: rows.map((row) => ({
        data_request_id: row.payload.data_request_id,
        customer: row.payload.customer,
        orders_requested: row.payload.orders_requested.map((id) => `gid://shopify/Order/${id}`),
        status: row.status,
        download_path: row.status === "completed" ? (row.result?.download_path ?? null) : null,
        ...jobHandle(row.id),
        requested_at: row.created_at.toISOString(),
        completed_at: row.finished_at?.toISOString() ?? null,
      })),
    };
  },
});
