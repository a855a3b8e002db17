/** Requests without a valid key one client address may make per window before all of its requests are refused. */
export const AUTH_FAILURES_PER_WINDOW = 60;
const AUTH_WINDOW_SECONDS = 60;
/** Addresses counted per window at most: past this, new addresses go uncounted rather than grow the map without end. */
const MAX_CLIENTS = 100_000;

/**
 * Failed authentications (401 answers) per client address, counted in this process's memory in
 * fixed windows. An address over the limit is refused (429) before its key is looked up, so a
 * flood of wrong or missing keys costs no database work: see docs/decisions/0123-auth-throttle.md.
 */
export class AuthThrottle {
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private window = Number.NaN;
  private readonly failures = new Map<string, number>();

  constructor(options: { limit?: number; windowSeconds?: number; now?: () => number } = {}) {
    this.limit = options.limit ?? AUTH_FAILURES_PER_WINDOW;
    this.windowMs = (options.windowSeconds ?? AUTH_WINDOW_SECONDS) * 1000;
    this.now = options.now ?? Date.now;
  }

  /** The seconds until `client` may try again when it is over the limit, else undefined. */
  refusedFor(client: string): number | undefined {
    const now = this.current();
    if ((this.failures.get(client) ?? 0) < this.limit) return undefined;
    return Math.max(1, Math.ceil(((this.window + 1) * this.windowMs - now) / 1000));
  }

  /** `client` was answered 401. */
  fail(client: string): void {
    this.current();
    const failures = this.failures.get(client);
    if (failures === undefined && this.failures.size >= MAX_CLIENTS) return;
    this.failures.set(client, (failures ?? 0) + 1);
  }

  /** The time now; a new window forgets the last one's counts. */
  private current(): number {
    const now = this.now();
    const window = Math.floor(now / this.windowMs);
    if (window !== this.window) {
      this.window = window;
      this.failures.clear();
    }
    return now;
  }
}
