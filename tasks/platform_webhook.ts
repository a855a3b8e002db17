import type { Task } from "graphile-worker";
import { z } from "zod";
import { processWebhook } from "../src/webhooks/process.ts";
import type { ServiceTaskDeps } from "./deps.ts";

const payload = z.object({ delivery_id: z.number().int() });

/** Applies a recorded platform webhook delivery; graphile-worker retries it with backoff. */
export default function platformWebhook(deps: ServiceTaskDeps): Task {
  return async (raw) => {
    const { delivery_id: deliveryId } = payload.parse(raw);
    await processWebhook(deps.pool, deliveryId);
  };
}
