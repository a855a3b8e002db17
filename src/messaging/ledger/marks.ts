/**
 * Marks results as they come. The marks of sends that complete within one turn of the event loop
 * go to `write` together (one statement, or one transaction); each caller waits for its own mark.
 * At most `parallel` writes run at once, so marks keep up with sends instead of queueing behind
 * one statement at a time.
 */
export class Marks<R> {
  private readonly write: (results: R[]) => Promise<void>;
  private readonly parallel: number;
  private waiting: { result: R; done: () => void; failed: (error: unknown) => void }[] = [];
  private readonly writing = new Set<Promise<void>>();
  private scheduled = false;

  constructor(write: (results: R[]) => Promise<void>, options: { parallel?: number } = {}) {
    this.write = write;
    this.parallel = options.parallel ?? 1;
  }

  mark(result: R): Promise<void> {
    return new Promise((done, failed) => {
      this.waiting.push({ result, done, failed });
      this.schedule();
    });
  }

  /** Resolves once every mark asked for so far has landed (or failed). */
  async flushed(): Promise<void> {
    while (this.scheduled || this.waiting.length > 0 || this.writing.size > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.all(this.writing);
    }
  }

  private schedule(): void {
    if (this.scheduled || this.writing.size >= this.parallel) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    const writing: Promise<void> = this.write(batch.map((b) => b.result)).then(
      () => {
        for (const b of batch) b.done();
      },
      (error: unknown) => {
        for (const b of batch) b.failed(error);
      },
    );
    this.writing.add(writing);
    void writing.finally(() => {
      this.writing.delete(writing);
      if (this.waiting.length > 0) this.schedule();
    });
  }
}
