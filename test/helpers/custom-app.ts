import type { AnyAction } from "../../src/core/action.ts";
import type { Log } from "../../src/logger.ts";
import { type TestApp, startTestApp } from "./app.ts";

export type CustomApp = TestApp;

/** The real HTTP layer and dispatcher over a registry of the test's own actions. */
export function startCustomApp(
  databaseUrl: string,
  actions: readonly AnyAction[],
  options: { overrides?: Record<string, string>; log?: Log } = {},
): Promise<CustomApp> {
  return startTestApp(databaseUrl, options.overrides, { actions, ...(options.log ? { log: options.log } : {}) });
}
