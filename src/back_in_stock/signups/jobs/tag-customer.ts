import { tagCustomerTask, tagSignupCustomer } from "../tagging.ts";
import { defineTask } from "../../../core/tasks.ts";
import { trackPlatformTag } from "../../../providers/sync/run.ts";

/** `bis_tag_customer` {signup_id}: the customer tag on the platform at signup; retried with backoff. */
export default defineTask({
  ...tagCustomerTask,
  async run(ctx, { signup_id: signupId }) {
    // Recorded as the signup's commerce_platform sync (signup_syncs), visible in its sync field.
    await trackPlatformTag({ pool: ctx.pool, attempt: ctx.attempt, maxAttempts: ctx.maxAttempts }, signupId, () => tagSignupCustomer(ctx, signupId));
  },
});
