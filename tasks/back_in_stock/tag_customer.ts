import type { Task } from "graphile-worker";
import { z } from "zod";
import { tagSignupCustomer } from "../../src/back_in_stock/signups/tagging.ts";
import type { ServiceTaskDeps } from "../deps.ts";

const payload = z.object({ signup_id: z.uuid() });

/** `bis_tag_customer` {signup_id}: the customer tag on the platform at signup; retried with backoff. */
export default function tagCustomer(deps: ServiceTaskDeps): Task {
  return async (raw) => {
    const { signup_id: signupId } = payload.parse(raw);
    await tagSignupCustomer(deps, signupId);
  };
}
