/**
 * The render pool's queue: fair between shops by the thread time each has used, and within a
 * shop interactive renders first, then sends by priority, first come first served among equals.
 *
 * A shop is served next when it has used the least thread time of those waiting; a shop that was
 * idle comes back level with the least-served busy one, not with the credit of its idle time. So
 * a shop whose template renders for 400 ms a job gets no more of the threads than one whose jobs
 * take 5 ms, whatever it sends, and whether its jobs are sends or template edits: before, every
 * edit went ahead of every send, and one shop saving a slow template in a loop held every other
 * shop's alerts (bench:isolation saw its own bulk notify wait over 120 s).
 */

/** Whose a job is and how urgent within that shop (src/messaging/render/pool.ts RenderLane). */
export interface FairLane {
  interactive?: boolean;
  owner?: string;
  /** Higher first (default 0), within the owner's own jobs. */
  priority?: number;
}

interface Entry {
  rank: number;
  seq: number;
  start: () => void;
}

interface Owner {
  /** Thread time used (ms), charged as an estimate when a job starts and corrected when it ends. */
  used: number;
  waiting: Entry[];
  running: number;
  /** The last job's duration: what the next one is charged when it starts. */
  estimate: number;
}

/** A job's rank within its owner: interactive first, then priority (clamped to -1,000..1,000). */
export function laneRank(lane: FairLane): number {
  if (lane.interactive) return Number.MAX_SAFE_INTEGER;
  return Math.max(-1_000, Math.min(1_000, Math.trunc(lane.priority ?? 0)));
}

export class FairQueue {
  readonly #concurrency: number;
  readonly #now: () => number;
  readonly #owners = new Map<string, Owner>();
  #running = 0;
  #seq = 0;

  constructor(concurrency: number, now: () => number = () => performance.now()) {
    this.#concurrency = Math.max(1, concurrency);
    this.#now = now;
  }

  /** Runs `run` when its turn comes; answers what it answers. */
  add<T>(lane: FairLane, run: () => Promise<T>): Promise<T> {
    const name = lane.owner ?? "";
    let owner = this.#owners.get(name);
    if (!owner) {
      owner = { used: this.#leastUsed(), waiting: [], running: 0, estimate: 1 };
      this.#owners.set(name, owner);
    }
    const held = owner;
    return new Promise<T>((resolve, reject) => {
      const entry: Entry = {
        rank: laneRank(lane),
        seq: this.#seq++,
        start: () => {
          const charged = held.estimate;
          held.used += charged;
          held.running += 1;
          this.#running += 1;
          const started = this.#now();
          // The time is charged before the caller hears the answer: what it queues next already
          // sees this job's share.
          const settle = () => {
            const took = Math.max(0, this.#now() - started);
            held.used += took - charged;
            held.estimate = Math.max(1, took);
            held.running -= 1;
            this.#running -= 1;
            if (held.running === 0 && held.waiting.length === 0) this.#owners.delete(name);
            this.#pump();
          };
          run().then(
            (value) => {
              settle();
              resolve(value);
            },
            (error: unknown) => {
              settle();
              reject(error instanceof Error ? error : new Error(String(error)));
            },
          );
        },
      };
      // Kept in order: highest rank first, then first come.
      const at = held.waiting.findIndex((e) => e.rank < entry.rank);
      if (at === -1) held.waiting.push(entry);
      else held.waiting.splice(at, 0, entry);
      this.#pump();
    });
  }

  /** The least thread time used by a shop with work, or 0: where a shop starts that was idle. */
  #leastUsed(): number {
    let least: number | undefined;
    for (const owner of this.#owners.values()) least = least === undefined ? owner.used : Math.min(least, owner.used);
    return least ?? 0;
  }

  #pump(): void {
    while (this.#running < this.#concurrency) {
      let next: Owner | undefined;
      for (const owner of this.#owners.values()) {
        const head = owner.waiting[0];
        if (!head) continue;
        const best = next?.waiting[0];
        if (!next || !best || owner.used < next.used || (owner.used === next.used && head.seq < best.seq)) next = owner;
      }
      const entry = next?.waiting.shift();
      if (!entry) return;
      entry.start();
    }
  }
}
