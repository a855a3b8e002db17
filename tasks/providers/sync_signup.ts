import { defineTask } from "../../src/core/tasks.ts";
import { providerSyncTask } from "../../src/providers/sync/model.ts";
import { syncSignupToProvider } from "../../src/providers/sync/run.ts";

/** `provider_sync_signup` {signup_id, target}: a signup upserted into an e-mail provider's audience; retried with backoff. */
export default defineTask({
  ...providerSyncTask,
  async run(ctx, { signup_id: signupId, target }) {
    await syncSignupToProvider({ pool: ctx.pool, log: ctx.log, config: ctx.config, secrets: ctx.platform.secrets, attempt: ctx.attempt, maxAttempts: ctx.maxAttempts }, signupId, target);
  },
});
