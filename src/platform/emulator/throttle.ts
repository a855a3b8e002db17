/**
 * The platform's leaky bucket, one per access token: `currentlyAvailable` refills at `restoreRate`
 * points per second up to `maximumAvailable`. A query takes its requested cost before it runs and
 * gets back the difference to its actual cost after, so concurrent queries cannot overdraw.
 */

export interface ThrottleSettings {
  maximumAvailable: number;
  restoreRate: number;
  /** A single query above this cost is refused outright (MAX_COST_EXCEEDED). */
  maxQueryCost: number;
}

export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

/**
 * A standard plan's figures: Shopify documents 100 points a second for the GraphQL Admin API on a
 * standard plan and a 1,000-point single-query limit
 * (https://shopify.dev/docs/apps/build/apis/graphql-admin/rate-limits); a real store reports a
 * bucket of 2,000 (`throttleStatus` of every recorded answer in test/fixtures/shopify-cost/).
 */
const THROTTLE_DEFAULTS: ThrottleSettings = { maximumAvailable: 2000, restoreRate: 100, maxQueryCost: 1000 };

interface Bucket {
  available: number;
  at: number;
}

export class Throttle {
  #settings: ThrottleSettings;
  readonly #buckets = new Map<string, Bucket>();
  readonly #clock: () => number;

  constructor(settings: Partial<ThrottleSettings> = {}, clock: () => number = () => performance.now()) {
    this.#settings = { ...THROTTLE_DEFAULTS, ...settings };
    this.#clock = clock;
  }

  get settings(): ThrottleSettings {
    return { ...this.#settings };
  }

  /** New limits; every bucket starts full under them. */
  configure(settings: Partial<ThrottleSettings>): void {
    this.#settings = { ...this.#settings, ...settings };
    this.#buckets.clear();
  }

  #bucket(token: string): Bucket {
    const now = this.#clock();
    let bucket = this.#buckets.get(token);
    if (!bucket) {
      bucket = { available: this.#settings.maximumAvailable, at: now };
      this.#buckets.set(token, bucket);
    }
    const restored = ((now - bucket.at) / 1000) * this.#settings.restoreRate;
    bucket.available = Math.min(this.#settings.maximumAvailable, bucket.available + restored);
    bucket.at = now;
    return bucket;
  }

  status(token: string): ThrottleStatus {
    const bucket = this.#bucket(token);
    return {
      maximumAvailable: this.#settings.maximumAvailable,
      // Whole points, rounded down: a client waiting on this figure never waits too little.
      currentlyAvailable: Math.floor(bucket.available),
      restoreRate: this.#settings.restoreRate,
    };
  }

  /** Takes `cost` points when the bucket holds them; answers whether it did. */
  take(token: string, cost: number): boolean {
    const bucket = this.#bucket(token);
    if (cost > bucket.available) return false;
    bucket.available -= cost;
    return true;
  }

  refund(token: string, points: number): void {
    const bucket = this.#bucket(token);
    bucket.available = Math.min(this.#settings.maximumAvailable, bucket.available + points);
  }
}
