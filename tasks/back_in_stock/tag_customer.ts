import { tagCustomerTask, tagSignupCustomer } from "../../src/back_in_stock/signups/tagging.ts";
import { defineTask } from "../../src/core/tasks.ts";

/** `bis_tag_customer` {signup_id}: the customer tag on the platform at signup; retried with backoff. */
export default defineTask({
  ...tagCustomerTask,
  async run(ctx, { signup_id: signupId }) {
    await tagSignupCustomer(ctx, signupId);
  },
});
