/** Addresses counted per window at most: past this, new addresses go uncounted rather than grow the map without end. */
const MAX_CLIENTS = 100_000;

/**
 * Requests per client address, counted in this process's memory in fixed windows: an address
 * past `limit` in the current window is refused until the next one. The failed-authentication
 * throttle (auth-throttle.ts) is one of these. (The storefront's signup limit is counted in
 * PostgreSQL instead, shared by every process: core/client-rate-limit.ts, decision 0215.)
 */
export class ClientWindowCounter {
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private window = Number.NaN;
  private readonly counts = new Map<string, number>();

  constructor(options: { limit: number; windowSeconds: number; now?: () => number }) {
    this.limit = options.limit;
    this.windowMs = options.windowSeconds * 1000;
    this.now = options.now ?? Date.now;
  }

  /** The seconds until `client` may try again when it is over the limit, else undefined. */
  refusedFor(client: string): number | undefined {
    const now = this.current();
    if ((this.counts.get(client) ?? 0) < this.limit) return undefined;
    return Math.max(1, Math.ceil(((this.window + 1) * this.windowMs - now) / 1000));
  }

  /** Counts one request of `client`. */
  count(client: string): void {
    this.current();
    const counted = this.counts.get(client);
    if (counted === undefined && this.counts.size >= MAX_CLIENTS) return;
    this.counts.set(client, (counted ?? 0) + 1);
  }

  /** The time now; a new window forgets the last one's counts. */
  private current(): number {
    const now = this.now();
    const window = Math.floor(now / this.windowMs);
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    return now;
  }
}
