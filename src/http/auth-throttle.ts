import { createHash } from "node:crypto";
import { ClientWindowCounter } from "./client-window.ts";

/** Requests without a valid key one client address may make per window before its bad-key attempts are refused. */
export const AUTH_FAILURES_PER_WINDOW = 60;
const AUTH_WINDOW_SECONDS = 60;
/** Wrong keys remembered per window at most: past this, new ones are looked up each time. */
const MAX_WRONG_KEYS = 10_000;

/**
 * Failed authentications (401 answers) per client address. Over the limit, the address's
 * requests without a key, or with a key answered 401 in this window, are refused (429) without a
 * lookup; any other key is looked up once, and a live one is served under its own budget, so a
 * flood of bad keys never locks out the valid keys sent from the same address (a NAT, or a proxy
 * not named in TRUST_PROXY): see docs/decisions/0123-auth-throttle.md and 0252.
 */
export class AuthThrottle extends ClientWindowCounter {
  /** SHA-256 of the keys answered 401 in the current window (their digests, never the keys). */
  private readonly wrong = new Set<string>();
  private wrongWindow = Number.NaN;
  private readonly keysWindowMs: number;
  private readonly keysClock: () => number;

  constructor(options: { limit?: number; windowSeconds?: number; now?: () => number } = {}) {
    const windowSeconds = options.windowSeconds ?? AUTH_WINDOW_SECONDS;
    super({ limit: options.limit ?? AUTH_FAILURES_PER_WINDOW, windowSeconds, ...(options.now ? { now: options.now } : {}) });
    this.keysWindowMs = windowSeconds * 1000;
    this.keysClock = options.now ?? Date.now;
  }

  /** `client` was answered 401, with `token` when it sent one. */
  fail(client: string, token?: string): void {
    this.count(client);
    if (token === undefined) return;
    const wrong = this.wrongKeys();
    if (wrong.size < MAX_WRONG_KEYS) wrong.add(digest(token));
  }

  /** Whether `token` was answered 401 in this window: refused again without a lookup (a key made since cannot be it). */
  knownWrong(token: string): boolean {
    return this.wrongKeys().has(digest(token));
  }

  /** The wrong keys of the current window; a new window forgets the last one's, as the counts. */
  private wrongKeys(): Set<string> {
    const window = Math.floor(this.keysClock() / this.keysWindowMs);
    if (window !== this.wrongWindow) {
      this.wrongWindow = window;
      this.wrong.clear();
    }
    return this.wrong;
  }
}

const digest = (token: string): string => createHash("sha256").update(token, "utf8").digest("base64");
