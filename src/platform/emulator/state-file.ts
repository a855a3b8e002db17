import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import type { EmulatorLog } from "./log.ts";

/** How long after a change the state is written: a burst of changes (a sync of many offers) writes once. */
export const DEFAULT_SAVE_DELAY_MS = 500;

/** The file's text, or undefined when there is none yet. */
export async function readStateFile(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Writes the whole file or nothing: a temporary file beside it, flushed to disk, then renamed over
 * it (atomic on one file system), so a crash mid-write leaves the previous state, never half of one.
 */
async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    const handle = await open(temp, "w", 0o600);
    try {
      await handle.writeFile(text, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Saves the emulator's state to its file: `changed()` after each write, debounced; `flush()` on
 * stop. Writes run one at a time and serialize the state when they start, so each saves the latest.
 */
export class StateFile {
  readonly #file: string;
  readonly #delayMs: number;
  readonly #log: EmulatorLog;
  readonly #serialize: () => string;
  #timer: NodeJS.Timeout | undefined;
  #dirty = false;
  #writing: Promise<void> = Promise.resolve();

  constructor(file: string, delayMs: number, log: EmulatorLog, serialize: () => string) {
    this.#file = file;
    this.#delayMs = delayMs;
    this.#log = log;
    this.#serialize = serialize;
  }

  get file(): string {
    return this.#file;
  }

  changed(): void {
    this.#dirty = true;
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      // A failed write stays dirty: the next change or the stop tries again.
      this.#write().catch((error: unknown) => this.#log.warn({ err: error, file: this.#file }, "could not save the platform emulator state"));
    }, this.#delayMs);
  }

  /** Writes the state now, whether or not a change was announced (tests may change the store directly). */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#dirty = true;
    await this.#write();
  }

  #write(): Promise<void> {
    const write = this.#writing.then(async () => {
      if (!this.#dirty) return;
      this.#dirty = false;
      try {
        await writeAtomically(this.#file, this.#serialize());
      } catch (error) {
        this.#dirty = true;
        throw error;
      }
    });
    // The chain goes on after a failure; this write's caller still sees it.
    this.#writing = write.catch(() => undefined);
    return write;
  }
}
