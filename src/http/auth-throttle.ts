import { ClientWindowCounter } from "./client-window.ts";

/** Requests without a valid key one client address may make per window before all of its requests are refused. */
export const AUTH_FAILURES_PER_WINDOW = 60;
const AUTH_WINDOW_SECONDS = 60;

/**
 * Failed authentications (401 answers) per client address. An address over the limit is refused
 * (429) before its key is looked up, so a flood of wrong or missing keys costs no database work:
 * see docs/decisions/0123-auth-throttle.md.
 */
export class AuthThrottle extends ClientWindowCounter {
  constructor(options: { limit?: number; windowSeconds?: number; now?: () => number } = {}) {
    super({ limit: options.limit ?? AUTH_FAILURES_PER_WINDOW, windowSeconds: options.windowSeconds ?? AUTH_WINDOW_SECONDS, ...(options.now ? { now: options.now } : {}) });
  }

  /** `client` was answered 401. */
  fail(client: string): void {
    this.count(client);
  }
}
