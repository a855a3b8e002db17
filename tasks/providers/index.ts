import type { AnyTaskDefinition } from "../../src/core/tasks.ts";
import syncSignup from "../../src/providers/jobs/sync-signup.ts";

/** The e-mail provider tasks (merged in tasks/index.ts). */
export const providerTasks: readonly AnyTaskDefinition[] = [syncSignup];
