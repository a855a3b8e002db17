import { randomBytes } from "node:crypto";
import { EMAIL_PROVIDERS, type EmailProvider } from "../types.ts";

/** A contact in an audience, as the emulator keeps it (keyed by lower-cased e-mail). */
export interface EmulatedMember {
  id: string;
  email: string;
  first_name: string | null;
  locale: string | null;
  status: "subscribed";
  created_at: string;
  updated_at: string;
  /** How many successful writes (subscribe or upsert) this member received: 1 means it arrived exactly once. */
  writes: number;
}

export interface EmulatedAudience {
  id: string;
  name: string;
  members: Map<string, EmulatedMember>;
}

export interface EmulatedAccount {
  id: string;
  name: string;
  audiences: Map<string, EmulatedAudience>;
}

/** Injected faults of one provider; `{}` is none. */
export interface ProviderFaults {
  /** Every credential is refused (401), valid or not. */
  refuseKeys?: boolean;
  /** Every API call answers `failStatus` (an outage) until faults change. */
  outage?: boolean;
  /** The next N API calls answer `failStatus`. */
  failNext?: number;
  /** Status of `outage` and `failNext` answers (default 503). */
  failStatus?: number;
  /** The next N API calls answer 429 with Retry-After: `retryAfterSeconds` (default 1). */
  rateLimitNext?: number;
  retryAfterSeconds?: number;
  /** Delay before every API answer. */
  latencyMs?: number;
}

export interface ProviderStats {
  /** API calls received (admin routes not counted). */
  requests: number;
  /** Calls answered with an injected fault. */
  faulted: number;
  /** Successful member writes. */
  subscribes: number;
}

/** The seeded credentials and audiences, known to tests and documented in the emulator's README. */
export const PROVIDER_SEED = {
  email_provider_1: {
    /** An OAuth access token the emulator accepts (also issued for any authorization code but "invalid"). */
    token: "ep1-demo-access-token",
    accounts: [{ id: "acct_ep1_demo", name: "Demo Store (email_provider_1)", credentials: ["ep1-demo-access-token"], audiences: [{ id: "aud_1001", name: "Newsletter" }, { id: "aud_1002", name: "Back in stock" }] }],
  },
  email_provider_2: {
    key: "ep2-demo-api-key",
    accounts: [{ id: "acct_ep2_demo", name: "Demo Store (email_provider_2)", credentials: ["ep2-demo-api-key"], audiences: [{ id: "LsT001", name: "Newsletter" }, { id: "LsT002", name: "Restock alerts" }] }],
  },
  email_provider_3: {
    key: "ep3-demo-api-key-us1",
    /** A second account's key: its audiences differ. */
    otherKey: "ep3-other-api-key-us1",
    accounts: [
      { id: "acct_ep3_demo", name: "Demo Store (email_provider_3)", credentials: ["ep3-demo-api-key-us1"], audiences: [{ id: "a1b2c3d4e5", name: "Store customers" }, { id: "f6a7b8c9d0", name: "Back in stock" }] },
      { id: "acct_ep3_other", name: "Another store", credentials: ["ep3-other-api-key-us1"], audiences: [{ id: "0011223344", name: "Other store list" }] },
    ],
  },
} as const;

/** One provider's accounts, credentials, faults and counters. */
export class ProviderState {
  readonly name: EmailProvider;
  readonly accounts = new Map<string, EmulatedAccount>();
  /** Credential (API key or OAuth token) -> account id. */
  readonly credentials = new Map<string, string>();
  faults: ProviderFaults = {};
  readonly stats: ProviderStats = { requests: 0, faulted: 0, subscribes: 0 };
  #nextMember = 1;

  constructor(name: EmailProvider) {
    this.name = name;
    for (const account of PROVIDER_SEED[name].accounts) {
      this.accounts.set(account.id, {
        id: account.id,
        name: account.name,
        audiences: new Map(account.audiences.map((a) => [a.id, { id: a.id, name: a.name, members: new Map<string, EmulatedMember>() }])),
      });
      for (const credential of account.credentials) this.credentials.set(credential, account.id);
    }
  }

  /** The account a credential opens, or undefined. */
  account(credential: string | undefined): EmulatedAccount | undefined {
    const id = credential === undefined ? undefined : this.credentials.get(credential);
    return id === undefined ? undefined : this.accounts.get(id);
  }

  /** A new credential for the first (demo) account, or for `accountId`. */
  issueCredential(accountId?: string, credential = `${this.name}-${randomBytes(12).toString("hex")}`): string {
    const id = accountId ?? [...this.accounts.keys()][0];
    if (id === undefined || !this.accounts.has(id)) throw new Error(`no account ${accountId ?? ""}`);
    this.credentials.set(credential, id);
    return credential;
  }

  /** Adds or updates a member; counts the write. */
  upsertMember(audience: EmulatedAudience, fields: { email: string; first_name: string | null; locale: string | null }, id: (email: string) => string): EmulatedMember {
    const key = fields.email.toLowerCase();
    const now = new Date().toISOString();
    const existing = audience.members.get(key);
    this.stats.subscribes += 1;
    if (existing) {
      existing.first_name = fields.first_name ?? existing.first_name;
      existing.locale = fields.locale ?? existing.locale;
      existing.updated_at = now;
      existing.writes += 1;
      return existing;
    }
    const member: EmulatedMember = { id: id(key) || `m_${this.#nextMember}`, email: key, first_name: fields.first_name, locale: fields.locale, status: "subscribed", created_at: now, updated_at: now, writes: 1 };
    this.#nextMember += 1;
    audience.members.set(key, member);
    return member;
  }

  /**
   * The injected fault for this API call, if any: consumed in order rate limit, failure, refusal.
   * Answers the status and headers to send, or undefined to serve the call.
   */
  fault(): { status: number; headers: Record<string, string>; body: Record<string, unknown> } | undefined {
    const f = this.faults;
    if (f.rateLimitNext && f.rateLimitNext > 0) {
      f.rateLimitNext -= 1;
      this.stats.faulted += 1;
      return { status: 429, headers: { "retry-after": String(f.retryAfterSeconds ?? 1) }, body: { error: "Too many requests" } };
    }
    if (f.outage || (f.failNext && f.failNext > 0)) {
      if (!f.outage && f.failNext) f.failNext -= 1;
      this.stats.faulted += 1;
      const status = f.failStatus ?? 503;
      return { status, headers: {}, body: { error: `Service unavailable (injected ${status})` } };
    }
    return undefined;
  }
}

export function createProviderStates(): Record<EmailProvider, ProviderState> {
  return Object.fromEntries(EMAIL_PROVIDERS.map((name) => [name, new ProviderState(name)])) as Record<EmailProvider, ProviderState>;
}
