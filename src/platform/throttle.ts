import { setTimeout as sleep } from "node:timers/promises";
import { platformThrottleWait } from "../metrics/registry.ts";

/** The platform's leaky bucket, as every answer's `extensions.cost.throttleStatus` reports it. */
export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  /** Points restored per second. */
  restoreRate: number;
}

/** Budget held by one request between sending it and reading its answer. */
export interface Reservation {
  readonly cost: number;
}

/**
 * A local model of the platform's cost bucket, so requests wait for budget instead of being
 * throttled. The platform refills `restoreRate` points per second up to `maximumAvailable`;
 * between readings we extrapolate from the last one, minus what we have reserved since.
 *
 * Reservations are granted one at a time, in call order: N parallel callers queue on the
 * budget instead of all spending the same points. Until the first reading arrives the bucket's
 * size is unknown, so only one request is let through to learn it.
 */
export class CostBucket {
  #status: ThrottleStatus | undefined;
  /** performance.now() at which #status.currentlyAvailable held. */
  #observedAt = 0;
  readonly #inFlight = new Set<Reservation>();
  /** Resolves when the previous reservation has been granted (or given up). */
  #queue: Promise<void> = Promise.resolve();
  /** Wakes a reservation waiting for the first reading. */
  #settled: PromiseWithResolvers<void> = Promise.withResolvers<void>();

  /** The last reading, extrapolated to now; undefined before the first answer. */
  snapshot(): ThrottleStatus | undefined {
    if (!this.#status) return undefined;
    return { ...this.#status, currentlyAvailable: this.#availableAt(performance.now()) };
  }

  /** Waits until `cost` points are (estimated) available, then takes them. */
  async reserve(cost: number, signal?: AbortSignal): Promise<Reservation> {
    const previous = this.#queue;
    const turn = Promise.withResolvers<void>();
    this.#queue = turn.promise;
    try {
      await previous;
      signal?.throwIfAborted();
      for (;;) {
        const status = this.#status;
        if (!status) {
          if (this.#inFlight.size === 0) break;
          await abortable(this.#settled.promise, signal);
          continue;
        }
        // A query dearer than the whole bucket can never fit; waiting for a full bucket is the best we can do.
        const needed = Math.min(cost, status.maximumAvailable);
        const waitMs = ((needed - this.#availableAt(performance.now())) / status.restoreRate) * 1000;
        if (!(waitMs > 0)) break;
        platformThrottleWait.inc(Math.ceil(waitMs) / 1000);
        await delay(Math.ceil(waitMs), signal);
      }
      return this.#take(cost);
    } finally {
      turn.resolve();
    }
  }

  /**
   * Releases a reservation once its answer is in. A reading replaces the estimate; requests
   * still in flight may not be counted in it yet, so their reservations stay deducted (erring on
   * the side of waiting a little too long rather than being throttled).
   */
  settle(reservation: Reservation, status?: ThrottleStatus): void {
    this.#inFlight.delete(reservation);
    if (status && status.restoreRate > 0 && status.maximumAvailable > 0) {
      let pending = 0;
      for (const other of this.#inFlight) pending += other.cost;
      // Less one point: a platform may round the figure it reports, and one point costs a few ms of waiting.
      this.#status = { ...status, currentlyAvailable: status.currentlyAvailable - pending - 1 };
      this.#observedAt = performance.now();
    }
    this.#settled.resolve();
    this.#settled = Promise.withResolvers<void>();
  }

  #availableAt(now: number): number {
    const status = this.#status;
    if (!status) return Number.POSITIVE_INFINITY;
    const restored = (status.restoreRate * (now - this.#observedAt)) / 1000;
    return Math.min(status.maximumAvailable, status.currentlyAvailable + restored);
  }

  #take(cost: number): Reservation {
    const now = performance.now();
    if (this.#status) {
      this.#status = { ...this.#status, currentlyAvailable: this.#availableAt(now) - cost };
      this.#observedAt = now;
    }
    const reservation = { cost };
    this.#inFlight.add(reservation);
    return reservation;
  }
}

/** A timer that, when the caller aborts, rejects with the caller's own reason rather than a generic AbortError. */
export async function delay(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}

function abortable(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      reject,
    );
  });
}
