import type { AnyTaskDefinition } from "../../src/core/tasks.ts";
import flowTrigger from "../../src/providers/jobs/flow-trigger.ts";
import syncSignup from "../../src/providers/jobs/sync-signup.ts";

/** The e-mail provider tasks and the Flow triggers' (merged in tasks/index.ts). */
export const providerTasks: readonly AnyTaskDefinition[] = [syncSignup, flowTrigger];
