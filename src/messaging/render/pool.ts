import os from "node:os";
import { Piscina } from "piscina";
import { FairQueue, type FairLane } from "./fair-queue.ts";
import { RENDER_LIMIT_MESSAGE, TEMPLATE_LIMITS } from "./limits.ts";
import type { FinishJob, FinishOutcome } from "./finish.ts";
import type { RenderField, RenderJob, RenderOutcome } from "./worker.ts";

/**
 * The render pool: every merchant template renders on one of a few worker threads, never on the
 * thread that serves requests and jobs. liquidjs checks its time limit only between template
 * nodes, so one `{{ }}` with a slow filter chain ran 260 ms past it and froze every shop; here a
 * render still running DEADLINE_MS after it started has its thread terminated (piscina replaces
 * it) and fails with the render limit's message.
 */

/**
 * The hard bound on one render. Past the limit a render has failed anyway (the thread checks the
 * time of each render it completes); the small margin lets liquidjs's own check, or the end of
 * the render, give that verdict without the cost of a new thread.
 */
const DEADLINE_MS = TEMPLATE_LIMITS.renderMs + 25;
let deadlineMs = DEADLINE_MS;

/**
 * Sets the hard bound (undefined: the default) for the renders that start after it. A test that
 * shows a thread terminated lowers it: no template within the memory limit runs past 125 ms on
 * every machine (the slowest single filter chain renders in 84 to 147 ms on a 2026 core).
 */
export function setRenderDeadline(ms: number | undefined): void {
  deadlineMs = ms ?? DEADLINE_MS;
}
/** How often the watchdog looks at the renders in progress (only while there are some). */
const WATCH_MS = 10;
/** Threads that served nothing this long exit (the next render starts one again). */
const IDLE_MS = 30_000;

const WORKER_URL = new URL("./worker.ts", import.meta.url).href;

const now = (): number => performance.timeOrigin + performance.now();

/** Threads when RENDER_THREADS is unset: leave one core to the thread that sends. */
const defaultRenderThreads = (): number => Math.max(1, os.availableParallelism() - 1);

let threads = defaultRenderThreads();
let pool: Piscina<RenderJob | FinishJob, RenderOutcome[][] | FinishOutcome[]> | undefined;

/** RENDER_THREADS; takes effect with the next pool (the current one is closed first by the caller at startup, if any). */
export function setRenderThreads(count: number | undefined): void {
  threads = count ?? defaultRenderThreads();
}

let warm = false;

function currentPool(): Piscina<RenderJob | FinishJob, RenderOutcome[][] | FinishOutcome[]> {
  pool ??= new Piscina({ filename: WORKER_URL, minThreads: warm ? threads : 0, maxThreads: threads, idleTimeout: IDLE_MS, concurrentTasksPerWorker: 1 });
  return pool;
}

/**
 * Starts the pool's threads now, each with the engine loaded, and keeps them while the pool
 * lives, idle or not (a worker process, whose sends render): a restock's first alerts after a
 * quiet spell do not wait for a thread to start (150 ms here, 400 ms on a busy machine). Other
 * processes start threads on the first render and let them go after IDLE_MS.
 */
export function keepRenderThreadsWarm(): void {
  warm = true;
  currentPool();
}

/** Threads the pool has started (for tests and diagnostics). */
export const renderThreads = (): number => pool?.threads.length ?? 0;

/** Ends the threads (at shutdown, after the worker and HTTP have stopped); a later render starts a new pool. */
export async function closeRenderPool(): Promise<void> {
  const closing = pool;
  pool = undefined;
  queue = undefined;
  await closing?.close();
}

interface Watched {
  clock: Int32Array;
  deadline: number;
  base: number;
  controller: AbortController;
}

const watched = new Set<Watched>();
let terminated = 0;

/** Renders whose thread this process terminated at the deadline (for tests and diagnostics). */
export const terminatedRenders = (): number => terminated;
let watchdog: NodeJS.Timeout | undefined;

class DeadlineExceeded extends Error {
  constructor() {
    super(RENDER_LIMIT_MESSAGE);
  }
}

function watch(): void {
  const at = now();
  for (const job of watched) {
    const started = Atomics.load(job.clock, 0);
    if (started !== 0 && !job.controller.signal.aborted && at - (job.base + started - 1) > job.deadline) {
      terminated += 1;
      job.controller.abort(new DeadlineExceeded());
    }
  }
}

/**
 * Whose render a job is: a merchant's edit or preview (`interactive`: someone waits for the answer)
 * or a send of the shop `owner`, at a `priority` (the send's: a restock burst's first messages
 * 1, follow-ups 0). Shops share the threads by the thread time each has used (fair-queue.ts);
 * within a shop, interactive jobs first, then sends by priority. Without it the pool served first
 * come first: one shop's 200 alerts with a slow template held every other shop's sends, and its
 * own template edits waited minutes behind them; and a burst's first messages waited behind the
 * follow-ups of the batches queued before it.
 */
export type RenderLane = FairLane;

let queue: FairQueue | undefined;

function laneQueue(): FairQueue {
  queue ??= new FairQueue(threads);
  return queue;
}

function queued<T>(lane: RenderLane, run: () => Promise<T>): Promise<T> {
  return laneQueue().add(lane, run);
}

/** Runs one job; a render past the deadline rejects with DeadlineExceeded (its thread terminated). */
async function runOnce(fields: RenderField[], variables: Record<string, unknown>[]): Promise<RenderOutcome[][]> {
  const job: Watched = { clock: new Int32Array(new SharedArrayBuffer(4)), deadline: deadlineMs, base: now(), controller: new AbortController() };
  watched.add(job);
  watchdog ??= setInterval(watch, WATCH_MS).unref();
  try {
    return (await currentPool().run({ fields, variables, clock: job.clock, base: job.base }, { signal: job.controller.signal })) as RenderOutcome[][];
  } catch (error) {
    if (job.controller.signal.aborted) throw new DeadlineExceeded();
    throw error;
  } finally {
    watched.delete(job);
    if (watched.size === 0) {
      clearInterval(watchdog);
      watchdog = undefined;
    }
  }
}

/**
 * Renders each field for each variables object on the pool: outcomes[v][f]. A job whose thread was
 * terminated is run once more (a pause of the machine may have caused it); terminated again, its
 * every render fails with the render limit, as a template beyond a limit fails the rest of a batch.
 */
export async function runRenderJob(fields: RenderField[], variables: Record<string, unknown>[], lane: RenderLane = {}): Promise<RenderOutcome[][]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await queued(lane, () => runOnce(fields, variables));
    } catch (error) {
      if (!(error instanceof DeadlineExceeded)) throw error;
      if (attempt === 2) return variables.map(() => fields.map(() => ({ error: RENDER_LIMIT_MESSAGE })));
    }
  }
}

/**
 * Finishes e-mails on the pool (finish.ts): their text parts and MIME, in the lane of the renders
 * they come from. No deadline: the work is linear in a size the render limits bound.
 */
export async function runFinishJob(messages: FinishJob["messages"], lane: RenderLane = {}): Promise<FinishOutcome[]> {
  return queued(lane, async () => (await currentPool().run({ messages }, { name: "finishJob" })) as FinishOutcome[]);
}
