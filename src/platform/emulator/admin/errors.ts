/** An admin request that cannot be carried out: its HTTP status and a sentence. */
export class AdminError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}
