import { isDatabaseUnavailable } from "../../core/database-unavailable.ts";
import type { Db } from "../../core/db.ts";
import { type LeaseHolder, leaseDead } from "./lease.ts";

/**
 * THE DATABASE GATE of the send pipeline (send.ts): a database outage is a pause, not a flood of
 * duplicates. A message is sent only after its claim is committed, and its slot is held until its
 * mark lands; a mark that cannot be written because the database is away (isDatabaseUnavailable)
 * is not given up: it is written again with backoff until it lands, and meanwhile no send of this
 * process starts. So what an outage can send twice is what a crash can (at most SEND_CONCURRENCY
 * messages sent and not marked), and sending resumes by itself once the marks land.
 *
 * A send call that began before an outage resumes only its rows still leased to a live
 * connection: a restarted database has closed the connection its leases lived with, so those
 * rows are no longer its to send (another sender may take them). The call fails instead
 * (LeaseLost), and graphile-worker's retry of its job sends them (the ledger's orphans, with the
 * same message id). On shutdown (stop), the writes still waiting give up: their rows stay claimed
 * for the recovery sweep, as after a crash.
 */

/** Backoff of a mark written again while the database is away: doubling from 100 ms, at most 2 s. */
const FIRST_DELAY_MS = 100;
const MAX_DELAY_MS = 2_000;

/** A send call's leases died with its connection in an outage: its rows are left to the retry of its job. */
export class LeaseLost extends Error {
  constructor() {
    super("the connection holding this send's leases was lost in a database outage; the retry sends its rows");
    this.name = "LeaseLost";
  }
}

/** A send call's marks and sends through the gate (DatabaseGate.call). */
export interface SendCall {
  write(write: () => Promise<void>): Promise<void>;
  passage(id: string): Promise<void>;
}

export class DatabaseGate {
  /** Mark writes waiting for the database now; sends pass while there are none. */
  #failing = 0;
  #reopened: PromiseWithResolvers<void> | undefined;
  /** Outages seen by this process (each closing of the gate): a call that began in an earlier one checks its leases. */
  #outages = 0;
  /** Ends the waits of a shutdown: the writes retrying and the sends waiting give up. */
  #giveUp = new AbortController();
  /** The outage in which a lease holder was first seen (a batch's holder serves many calls). */
  readonly #holderSince = new WeakMap<LeaseHolder, number>();

  /** Whether marks are failing now (sends wait). */
  get closed(): boolean {
    return this.#failing > 0;
  }

  /**
   * Writes one batch of marks; while the database is away, again with backoff until it lands
   * (the gate closed meanwhile), or until a shutdown gives up. Any other error fails at once.
   */
  async write(write: () => Promise<void>): Promise<void> {
    try {
      await write();
      return;
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
    }
    this.#close();
    const { signal } = this.#giveUp;
    try {
      for (let attempt = 0; ; attempt += 1) {
        await pause(Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** attempt) * (0.5 + Math.random() / 2), signal);
        try {
          await write();
          return;
        } catch (error) {
          if (!isDatabaseUnavailable(error)) throw error;
        }
      }
    } finally {
      this.#open();
    }
  }

  /**
   * One send call's way through the gate: `write` its marks (above), and `passage` before each
   * send, which waits while marks are failing, then lets the send go only if its row is still
   * leased to `holder` by a live connection when an outage came since the holder was first seen
   * (else LeaseLost). After a mark of the call failed for good, no send of the call starts.
   */
  call(db: Db, table: string, holder: LeaseHolder, ids: readonly string[]): SendCall {
    // A holder first seen while marks fail may have lost its connection since: it checks too.
    if (!this.#holderSince.has(holder)) this.#holderSince.set(holder, this.closed ? this.#outages - 1 : this.#outages);
    const since = this.#holderSince.get(holder) ?? this.#outages;
    let checked: { outages: number; leased: Promise<ReadonlySet<string>> } | undefined;
    let failed: { error: unknown } | undefined;
    return {
      write: async (write) => {
        try {
          await this.write(write);
        } catch (error) {
          failed ??= { error };
          throw error;
        }
      },
      passage: async (id) => {
        while (this.#reopened) await this.#waitOpen();
        if (failed) throw failed.error;
        if (this.#outages === since) return;
        // One check per call and outage.
        if (checked?.outages !== this.#outages) checked = { outages: this.#outages, leased: stillLeased(db, table, holder, ids) };
        if (!(await checked.leased).has(id)) throw new LeaseLost();
      },
    };
  }

  /** Shutdown: the writes retrying give up with the database's error, the sends waiting with LeaseLost. */
  stop(): void {
    this.#giveUp.abort();
    this.#giveUp = new AbortController();
  }

  #close(): void {
    if (this.#failing === 0) {
      this.#outages += 1;
      this.#reopened = Promise.withResolvers();
    }
    this.#failing += 1;
  }

  #open(): void {
    this.#failing -= 1;
    if (this.#failing > 0) return;
    this.#reopened?.resolve();
    this.#reopened = undefined;
  }

  async #waitOpen(): Promise<void> {
    const { signal } = this.#giveUp;
    const reopened = this.#reopened?.promise;
    if (!reopened) return;
    await new Promise<void>((resolve, reject) => {
      const giveUp = () => reject(new LeaseLost());
      signal.addEventListener("abort", giveUp, { once: true });
      void reopened.then(() => {
        signal.removeEventListener("abort", giveUp);
        resolve();
      });
    });
  }
}

/** The process's gate: every send call of the process waits on the same database. */
export const databaseGate = new DatabaseGate();

async function stillLeased(db: Db, table: string, holder: LeaseHolder, ids: readonly string[]): Promise<ReadonlySet<string>> {
  const { rows } = await db.query<{ id: string }>(
    `select l.id from ${table} l where l.id = any($1::uuid[]) and l.lease_pid = $2 and not ${leaseDead("l")}`,
    [ids, holder.pid],
  );
  return new Set(rows.map((r) => r.id));
}

/** Waits `ms`, or rejects at once when `signal` aborts (a shutdown gives up the retry). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error("shutting down: a mark the database did not take is left to the recovery sweep"));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(new Error("shutting down: a mark the database did not take is left to the recovery sweep"));
    };
    signal.addEventListener("abort", stop, { once: true });
  });
}
