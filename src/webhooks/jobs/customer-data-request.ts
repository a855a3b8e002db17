import { defineJob } from "../../core/job-task.ts";
import { ChunkedExportWriter } from "../../exports/chunks.ts";
import { exportDownloadPath } from "../../exports/store.ts";
import { customerData, customerDataRequestJob } from "../lifecycle/data-request.ts";

const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/**
 * Application job `customer_data_request`: writes what the service holds about the customer as
 * one JSON file in the exports store; its result names the download path. It runs for a shop the
 * app is uninstalled from too (that is when such requests come): it needs no store client.
 */
export const customerDataRequestJobRun = defineJob({
  ...customerDataRequestJob,
  async run(ctx) {
    const data = await customerData(ctx.pool, ctx.shopId, ctx.payload);
    const writer = await ChunkedExportWriter.open(ctx.pool, {
      shopId: ctx.shopId,
      jobId: ctx.job.id,
      filename: `customer-data-request-${data.data_request_id}.json`,
      contentType: JSON_CONTENT_TYPE,
    });
    try {
      await writer.write(JSON.stringify({ ...data, generated_at: new Date().toISOString() }, null, 2));
    } catch (error) {
      await writer.abort();
      throw error;
    }
    const saved = await writer.finish();
    return {
      data_request_id: data.data_request_id,
      customer_id: data.customer.id,
      export_id: saved.id,
      download_path: exportDownloadPath(saved.id),
      filename: saved.filename,
      content_type: saved.content_type,
      bytes: saved.byte_size,
      found: { back_in_stock_signups: data.back_in_stock_signups.length, back_in_stock_messages: data.back_in_stock_messages.length, preorder_orders: data.preorder_orders.length },
    };
  },
});
