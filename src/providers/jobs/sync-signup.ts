import { defineTask } from "../../core/tasks.ts";
import { providerSyncTask } from "../sync/model.ts";
import { syncSignupToProvider } from "../sync/run.ts";

/** `provider_sync_signup` {signup_id, target}: a signup upserted into an e-mail provider's audience; retried with backoff. */
export default defineTask({
  ...providerSyncTask,
  async run(ctx, { signup_id: signupId, target }) {
    await syncSignupToProvider({ pool: ctx.pool, log: ctx.log, config: ctx.config, secrets: ctx.platform.secrets, attempt: ctx.attempt, maxAttempts: ctx.maxAttempts }, signupId, target);
  },
});
