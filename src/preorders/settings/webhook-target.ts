import { lookup as dnsLookup } from "node:dns";
import http from "node:http";
import https from "node:https";
import { type LookupFunction, isIP } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * Where the developer webhook may be delivered. A merchant's endpoint must be on the public
 * internet: only public unicast addresses are allowed (ipaddr.js's range classification), so
 * loopback, private, link-local (the cloud metadata address), unspecified, multicast, CGNAT,
 * documentation, benchmarking and other special ranges are refused and the webhook cannot be
 * used to reach this service's own network.
 *
 * The check is made on the address actually connected to: the host is resolved once by the
 * connection's own lookup, the address is checked there, and the socket connects to that very
 * address (the Host header and TLS SNI keep the URL's name), so a name that resolves to a public
 * address at the check and a private one at the connection (DNS rebinding) cannot slip through.
 * Redirects are never followed. `allowPrivate` (DEVELOPER_WEBHOOK_ALLOW_PRIVATE_TARGETS) lifts
 * the address rule, for a developer's own machine and the tests.
 */

/** How a refusal names ipaddr.js's ranges; any other range that is not public unicast is "a reserved address". */
const RANGE_REASONS: Readonly<Record<string, string>> = {
  unspecified: "an unspecified address",
  loopback: "a loopback address",
  private: "a private address",
  uniqueLocal: "a private address",
  linkLocal: "a link-local address",
  deprecatedSiteLocal: "a site-local address",
  carrierGradeNat: "a shared (CGNAT) address",
  multicast: "a multicast address",
  broadcast: "a broadcast address",
  // Its IPv4 parts are the relay's and the client's (obfuscated): neither says where packets end up.
  teredo: "a Teredo tunnel address",
};

const reasonOfRange = (range: string): string | undefined => (range === "unicast" ? undefined : (RANGE_REASONS[range] ?? "a reserved address"));

const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR("64:ff9b::/96");

/** The IPv4 address of two 16-bit groups of an IPv6 address. */
const v4Of = (high: number, low: number): ipaddr.IPv4 => new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);

/**
 * An IPv6 address that carries an IPv4 address the packets are delivered to (IPv4-mapped,
 * IPv4-translated, NAT64 well-known prefix, 6to4): that IPv4 address, judged by the IPv4 rules.
 */
function embeddedV4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | undefined {
  const [, g1 = 0, g2 = 0, , , , g6 = 0, g7 = 0] = address.parts;
  if (range === "ipv4Mapped") return address.toIPv4Address();
  if (range === "rfc6145") return v4Of(g6, g7);
  // The well-known prefix only: the local-use 64:ff9b:1::/48 (RFC 8215) is a reserved range of its own.
  if (range === "rfc6052" && address.match(NAT64_WELL_KNOWN)) return v4Of(g6, g7);
  if (range === "6to4") return v4Of(g1, g2);
  return undefined;
}

function blockedV6(address: ipaddr.IPv6): string | undefined {
  const range = address.range() as string;
  const v4 = embeddedV4(address, range);
  if (v4) return reasonOfRange(v4.range());
  if (range !== "unicast") return reasonOfRange(range);
  // ipaddr.js calls every address outside its special ranges unicast; only 2000::/3 is allocated
  // as global unicast (the rest, IPv4-compatible ::a.b.c.d included, is reserved).
  return ((address.parts[0] ?? 0) & 0xe000) === 0x2000 ? undefined : "a reserved address";
}

/**
 * The reason an address may not be a webhook target, or undefined when it is public unicast: the
 * ranges are ipaddr.js's classification, an IPv6 address that carries an IPv4 one is judged by it.
 */
export function blockedAddressReason(address: string): string | undefined {
  // node:net's isIP first: it is stricter than ipaddr.parse, which also reads 0x7f.1 and octal forms.
  if (isIP(address) === 0) return "not an IP address";
  if (isIP(address) === 4) return reasonOfRange(ipaddr.IPv4.parse(address).range());
  // ipaddr.js reads a dotted tail after :: as IPv4-mapped (::8.8.8.8 as ::ffff:8.8.8.8): written
  // out in hex first, the deprecated IPv4-compatible form keeps its own place (reserved).
  const hex = address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)(%.*)?$/, (_m, a: string, b: string, c: string, d: string, zone: string | undefined) =>
    `${[[a, b], [c, d]].map(([high, low]) => ((Number(high) << 8) | Number(low)).toString(16)).join(":")}${zone ?? ""}`,
  );
  return blockedV6(ipaddr.IPv6.parse(hex));
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

interface TargetResponse {
  status: number;
}

interface PostOptions {
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
