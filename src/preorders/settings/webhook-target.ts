import { lookup as dnsLookup } from "node:dns";
import http from "node:http";
import https from "node:https";
import { type LookupFunction, isIP } from "node:net";

/**
 * Where the developer webhook may be delivered. A merchant's endpoint must be on the public
 * internet: loopback, private (RFC 1918, fc00::/7), link-local (169.254/16 with the cloud
 * metadata address, fe80::/10), unspecified, multicast, CGNAT (100.64/10) and reserved
 * addresses are refused, so the webhook cannot be used to reach this service's own network.
 *
 * The check is made on the address actually connected to: the host is resolved once by the
 * connection's own lookup, the address is checked there, and the socket connects to that very
 * address (the Host header and TLS SNI keep the URL's name), so a name that resolves to a public
 * address at the check and a private one at the connection (DNS rebinding) cannot slip through.
 * Redirects are never followed. `allowPrivate` (DEVELOPER_WEBHOOK_ALLOW_PRIVATE_TARGETS) lifts
 * the address rule, for a developer's own machine and the tests.
 */

/** The reason an address may not be a webhook target, or undefined when it is public. */
export function blockedAddressReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return blockedV4(address);
  if (family === 6) return blockedV6(address);
  return "not an IP address";
}

function v4Number(address: string): number {
  return address.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

/** [first address, prefix length, reason] */
const V4_BLOCKS: readonly (readonly [string, number, string])[] = [
  ["0.0.0.0", 8, "an unspecified address"],
  ["10.0.0.0", 8, "a private address"],
  ["100.64.0.0", 10, "a shared (CGNAT) address"],
  ["127.0.0.0", 8, "a loopback address"],
  ["169.254.0.0", 16, "a link-local address"],
  ["172.16.0.0", 12, "a private address"],
  ["192.0.0.0", 24, "a reserved address"],
  ["192.168.0.0", 16, "a private address"],
  ["198.18.0.0", 15, "a reserved address"],
  ["224.0.0.0", 4, "a multicast address"],
  ["240.0.0.0", 4, "a reserved address"],
];

function blockedV4(address: string): string | undefined {
  const n = v4Number(address);
  for (const [first, bits, reason] of V4_BLOCKS) {
    const size = 2 ** (32 - bits);
    const start = v4Number(first);
    if (n >= start && n < start + size) return reason;
  }
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (an embedded dotted IPv4 tail expanded). */
function v6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, "");
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const n = v4Number(dotted[1]);
    text = `${text.slice(0, dotted.index)}${Math.floor(n / 65536).toString(16)}:${(n % 65536).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => Number.parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function blockedV6(address: string): string | undefined {
  const g = v6Groups(address);
  const [g0 = 0, g1 = 0, , , , g5 = 0, g6 = 0, g7 = 0] = g;
  const zeroUntil = (n: number) => g.slice(0, n).every((x) => x === 0);
  const embedded = () => `${g6 >> 8}.${g6 & 255}.${g7 >> 8}.${g7 & 255}`;
  if (zeroUntil(8)) return "an unspecified address";
  if (zeroUntil(7) && g7 === 1) return "a loopback address";
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d): the IPv4 rules.
  if (zeroUntil(5) && g5 === 0xffff) return blockedV4(embedded());
  if (zeroUntil(6)) return blockedV4(embedded());
  if (g0 === 0x64 && g1 === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return blockedV4(embedded());
  if ((g0 & 0xfe00) === 0xfc00) return "a private address";
  if ((g0 & 0xffc0) === 0xfe80) return "a link-local address";
  if ((g0 & 0xffc0) === 0xfec0) return "a site-local address";
  if ((g0 & 0xff00) === 0xff00) return "a multicast address";
  return undefined;
}

/** A URL's host without IPv6 brackets. */
const bareHost = (url: URL): string => url.hostname.replace(/^\[|\]$/g, "");

const LOCAL_NAME = /(^|\.)localhost\.?$/i;

/**
 * The PATCH-time check of a webhook URL (the delivery checks again, on the resolved address):
 * why it may not be used, or undefined. Catches literal IPs and names that always mean this machine.
 */
export function webhookUrlIssue(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined; // the schema already refused it
  }
  const host = bareHost(url);
  if (LOCAL_NAME.test(host)) return "must not point to this machine (localhost)";
  if (isIP(host) === 0) return undefined;
  const reason = blockedAddressReason(host);
  return reason ? `must not point to ${reason} (${host}): webhooks go to public endpoints only` : undefined;
}

/**
 * The delivery was refused before any request: the target is not a public address. The message,
 * which the shop reads in its event log, names neither the address nor its kind: a shop could
 * otherwise resolve the service's internal host names through it. `address` and `reason` are for
 * the service's own log.
 */
export class BlockedTargetError extends Error {
  readonly address: string;
  readonly reason: string;

  constructor(host: string, address: string, reason: string) {
    super(`the webhook endpoint ${host} is not a public address: refused, webhooks go to public endpoints only`);
    this.name = "BlockedTargetError";
    this.address = address;
    this.reason = reason;
  }
}

export interface TargetResponse {
  status: number;
}

export interface PostOptions {
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
}

/**
 * POSTs `body` to `target` and answers the HTTP status (the body is discarded; a redirect is an
 * answer like any other, never followed). Throws BlockedTargetError before connecting when the
 * target's address is not public (unless allowPrivate); other throws are network failures.
 */
export function postToWebhookTarget(target: string, options: PostOptions): Promise<TargetResponse> {
  const url = new URL(target);
  const host = bareHost(url);
  if (!options.allowPrivate && isIP(host) !== 0) {
    // A literal address is connected to without a lookup: checked here.
    const reason = blockedAddressReason(host);
    if (reason) return Promise.reject(new BlockedTargetError(host, host, reason));
  }
  // The connection's own lookup: every address the name resolves to must be public, and the
  // socket connects to the address answered here (never resolved a second time).
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 4);
      const list = addresses;
      if (!options.allowPrivate) {
        for (const entry of list) {
          const reason = blockedAddressReason(entry.address);
          if (reason) return callback(new BlockedTargetError(hostname, entry.address, reason), "", entry.family);
        }
      }
      const first = list[0];
      if (!first) return callback(new Error(`${hostname} resolves to no address`), "", 4);
      if (lookupOptions.all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      callback(null, first.address, first.family);
    });
  };
  const client = url.protocol === "https:" ? https : http;
  return new Promise<TargetResponse>((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: "POST",
        headers: { ...options.headers, "content-length": String(Buffer.byteLength(options.body)) },
        lookup,
        agent: false,
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (response) => {
        response.resume();
        resolve({ status: response.statusCode ?? 0 });
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });
}
