/**
 * Marks results as they come. One write runs at a time: the marks asked for while it runs go
 * together in the next (one statement, or one transaction), so a busy sender writes fewer, larger
 * statements (each a round trip that costs CPU on both ends). Each caller waits for its own mark.
 */
export class Marks<R> {
  private readonly write: (results: R[]) => Promise<void>;
  private waiting: { result: R; done: () => void; failed: (error: unknown) => void }[] = [];
  private writing: Promise<void> | undefined;
  private scheduled = false;

  constructor(write: (results: R[]) => Promise<void>) {
    this.write = write;
  }

  mark(result: R): Promise<void> {
    return new Promise((done, failed) => {
      this.waiting.push({ result, done, failed });
      this.schedule();
    });
  }

  /** Resolves once every mark asked for so far has landed (or failed). */
  async flushed(): Promise<void> {
    while (this.scheduled || this.waiting.length > 0 || this.writing) {
      await new Promise((resolve) => setImmediate(resolve));
      await this.writing;
    }
  }

  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    // The sends that complete in this turn of the event loop join the write.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    this.writing = this.write(batch.map((b) => b.result)).then(
      () => {
        for (const b of batch) b.done();
      },
      (error: unknown) => {
        for (const b of batch) b.failed(error);
      },
    );
    void this.writing.finally(() => {
      this.writing = undefined;
      if (this.waiting.length > 0) this.schedule();
    });
  }
}
