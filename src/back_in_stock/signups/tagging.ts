import type pg from "pg";
import { z } from "zod";
import { declareTask } from "../../core/tasks.ts";
import type { Log } from "../../logger.ts";
import { PlatformError } from "../../platform/errors.ts";
import { addCustomerTags } from "../../platform/operations/customers.ts";
import type { PlatformRuntime } from "../../platform/runtime.ts";
import { loadBackInStockSettings } from "../settings/settings.ts";

/** The customer tag of a new signup (job key `bis_tag_customer:<signup id>`; its run: src/back_in_stock/signups/jobs/tag-customer.ts). */
export const tagCustomerTask = declareTask({ name: "bis_tag_customer", payload: z.object({ signup_id: z.uuid() }) });

interface TaggingDeps {
  pool: pg.Pool;
  log: Log;
  platform: PlatformRuntime;
}

export type TaggingOutcome = "tagged" | "skipped" | "refused";

/**
 * Adds the shop's customer tag (tagging.customer_tag) to the signup's platform customer with
 * tagsAdd, which merges into the customer's tags. Skips when the signup is gone, has no
 * customer, tagging is off by now, or the shop is not connected. A refusal by the platform (an
 * unknown customer: user errors) is final and logged; transport failures throw, to be retried.
 */
export async function tagSignupCustomer(deps: TaggingDeps, signupId: string): Promise<TaggingOutcome> {
  const { rows } = await deps.pool.query<{ shop_id: string; customer_id: string | null; connected: boolean }>(
    `select s.shop_id, s.customer_id, sh.platform_graphql_url is not null as connected
     from bis_signups s join shops sh on sh.id = s.shop_id where s.id = $1`,
    [signupId],
  );
  const signup = rows[0];
  if (!signup?.customer_id) return "skipped";
  const settings = await loadBackInStockSettings(deps.pool, signup.shop_id);
  if (!settings.tagging.enabled) return "skipped";
  if (!signup.connected) {
    deps.log.warn({ shopId: signup.shop_id, signupId }, "customer tag skipped: shop is not connected to the store platform");
    return "skipped";
  }
  const client = await deps.platform.clientFor(deps.pool, signup.shop_id);
  try {
    await addCustomerTags(client, signup.customer_id, [settings.tagging.customer_tag]);
    return "tagged";
  } catch (error) {
    if (error instanceof PlatformError && error.kind === "user_errors") {
      deps.log.warn({ shopId: signup.shop_id, signupId, err: error }, "customer tag refused by the store platform");
      return "refused";
    }
    throw error;
  }
}
