/**
 * Whether an error says the database cannot be reached now (it is down, restarting, or the
 * connection to it was lost), as opposed to a statement it refused. Such an error passes when the
 * database is back: the API answers 503 with Retry-After, the send pipeline waits for it
 * (src/messaging/ledger/database-gate.ts).
 */

/** Node's socket errors on the way to the server. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ECONNABORTED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENETDOWN", "EAI_AGAIN"]);

/** PostgreSQL's: admin_shutdown, crash_shutdown, cannot_connect_now; class 08 is connection exceptions. */
const SERVER_CODES = new Set(["57P01", "57P02", "57P03"]);

/** node-postgres says these without a code: the socket closed under the client, or no connection came in time. */
const CLIENT_MESSAGES = [
  /^Connection terminated/,
  /^Client has encountered a connection error and is not queryable/,
  /^timeout exceeded when trying to connect/,
  /^Client was closed and is not queryable/,
];

/** Answered with Retry-After while the database is away: a reconnect with backoff takes about this long. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== "object" || error === null || depth > 4) return false;
  const { code, message, errors, cause } = error as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  if (typeof code === "string" && (SOCKET_CODES.has(code) || SERVER_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  if (typeof message === "string" && CLIENT_MESSAGES.some((pattern) => pattern.test(message))) return true;
  // A connect to a name with several addresses fails with all of them (AggregateError).
  if (Array.isArray(errors) && errors.length > 0 && errors.every((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return cause !== undefined && isDatabaseUnavailable(cause, depth + 1);
}
