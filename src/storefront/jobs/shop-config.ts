import { type AnyTaskDefinition, defineTask } from "../../core/tasks.ts";
import { shopConfigSyncTask } from "../enqueue.ts";
import { writeShopStorefrontConfig } from "../write.ts";

/** graphile-worker task `storefront_shop_config_sync`: the shop's storefront configuration metafield (a throw is retried with backoff). */
const shopConfigSync = defineTask({
  ...shopConfigSyncTask,
  async run(ctx, { shop_id: shopId }) {
    const result = await writeShopStorefrontConfig(ctx, shopId, ctx.signal);
    ctx.log.debug({ shopId, attempt: ctx.attempt, ...result }, "shop storefront configuration");
  },
});

export const storefrontTasks: readonly AnyTaskDefinition[] = [shopConfigSync];
