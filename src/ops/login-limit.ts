import { isIPv4, isIPv6 } from "node:net";
import type { Db } from "../core/db.ts";

/** Wrong tokens one client address may try per window before every attempt is refused. */
export const LOGIN_MAX_FAILURES = 10;
export const LOGIN_WINDOW_SECONDS = 300;

/**
 * The time windows are counted by, in epoch seconds: the database's now() unless the statement's
 * parameter `$n` gives it (a clock injected through OpsOptions.now: tests).
 */
const EPOCH = (n: number) => `coalesce($${n}::numeric, extract(epoch from now())::numeric)`;
const WINDOW = (n: number) => `floor(${EPOCH(n)} / ${LOGIN_WINDOW_SECONDS})::bigint`;
const RESET = (n: number) => `ceil(${LOGIN_WINDOW_SECONDS} - ${EPOCH(n)} % ${LOGIN_WINDOW_SECONDS})::int`;

/** The parameter for EPOCH: the injected clock's time in seconds, or null for the database's. */
const epochOf = (now: (() => number) | undefined): number | null => (now ? now() / 1000 : null);

/**
 * Counts a login attempt from `client` before its token is compared, in one statement, so
 * attempts sent in parallel each get their own number: only the first LOGIN_MAX_FAILURES of a
 * window are compared at all. Answers the seconds until `client` may try again when this one is
 * over the limit, else undefined (then `forgive` it if the token was right). `now` (ms since the
 * epoch) is the clock windows are counted by; absent, the database's.
 */
export async function countLoginAttempt(db: Db, client: string, now?: () => number): Promise<number | undefined> {
  const { rows } = await db.query<{ failures: number; reset: number }>(
    `insert into ops_login_failures (client, window_start, failures) values ($1, ${WINDOW(2)}, 1)
     on conflict (client, window_start) do update set failures = ops_login_failures.failures + 1
     returning failures, ${RESET(2)} as reset`,
    [client, epochOf(now)],
  );
  const row = rows[0];
  return row && row.failures > LOGIN_MAX_FAILURES ? row.reset : undefined;
}

/** The attempt counted by countLoginAttempt had the right token: it is not a failure. */
export async function forgiveLoginAttempt(db: Db, client: string, now?: () => number): Promise<void> {
  await db.query(`update ops_login_failures set failures = failures - 1 where client = $1 and window_start = ${WINDOW(2)} and failures > 0`, [
    client,
    epochOf(now),
  ]);
}

/** Drops the counts of windows that have ended (maintenance_prune). */
export async function pruneLoginFailures(db: Db): Promise<number> {
  return (await db.query(`delete from ops_login_failures where window_start < ${WINDOW(1)}`, [null])).rowCount ?? 0;
}

/**
 * Whom a login attempt is counted against: an IPv4 address, or an IPv6 address's /64 (one host
 * usually holds a whole /64, and could otherwise take a fresh address for every ten guesses). An
 * IPv4 address carried in IPv6 (mapped, ::ffff:0:0/96, or NAT64, 64:ff9b::/96) counts as that
 * IPv4 address: otherwise every IPv4 client reaching the service that way would share one budget.
 */
export function loginClient(ip: string): string {
  if (isIPv4(ip)) return ip;
  const address = ip.split("%")[0] ?? ""; // without a zone id (fe80::1%eth0)
  if (!isIPv6(address)) return ip;
  const groups = ipv6Groups(address);
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups;
  const mapped = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff;
  const nat64 = g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0;
  if (mapped || nat64) return [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff].join(".");
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(":")}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (the URL parser expands any dotted IPv4 tail to hex). */
function ipv6Groups(address: string): number[] {
  const canonical = new URL(`http://[${address}]`).hostname.slice(1, -1);
  const [head = "", tail] = canonical.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].map((g) => parseInt(g, 16));
}
