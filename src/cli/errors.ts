/** A failure the operator can act on: one line on stderr, exit code 1. */
export class CliError extends Error {
  override name = "CliError";
}

/** The command line itself is wrong: one line on stderr, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;

/** One line for stderr; pg and net errors sometimes carry their reason only in `code` or inner errors. */
export function errorLine(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  let message = error.message;
  if (!message && error instanceof AggregateError) {
    message = error.errors.map((inner) => (inner instanceof Error ? inner.message : String(inner))).join("; ");
  }
  if (!message) message = (error as NodeJS.ErrnoException).code ?? error.name;
  return message.replace(/\s*\n\s*/g, "; ");
}
