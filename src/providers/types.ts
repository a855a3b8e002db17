/** The three e-mail marketing providers the service syncs signups to (neutral names, as in the spec). */
export const EMAIL_PROVIDERS = ["email_provider_1", "email_provider_2", "email_provider_3"] as const;
export type EmailProvider = (typeof EMAIL_PROVIDERS)[number];

/** An audience (list) of a provider account. */
export interface Audience {
  id: string;
  name: string;
}

/** What a signup sends to a provider. */
export interface Subscriber {
  email: string;
  first_name: string | null;
  locale: string;
}

/**
 * What went wrong talking to a provider; callers branch on `kind`:
 * - `refused`: the provider refused the credentials (401/403); retrying with the same key is useless;
 * - `rejected`: it refused the request itself (an unknown list, an invalid address: 4xx); final;
 * - `transient`: unreachable, timed out, 5xx or 429; worth retrying later.
 * Messages never carry a key or a token.
 */
type ProviderErrorKind = "refused" | "rejected" | "transient";

export class ProviderError extends Error {
  readonly provider: EmailProvider;
  readonly kind: ProviderErrorKind;
  readonly status: number | undefined;
  /** Seconds the provider asked to wait (429 Retry-After). */
  readonly retryAfterSeconds: number | undefined;

  constructor(provider: EmailProvider, kind: ProviderErrorKind, message: string, details: { status?: number; retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(`${provider}: ${message}`, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "ProviderError";
    this.provider = provider;
    this.kind = kind;
    this.status = details.status;
    this.retryAfterSeconds = details.retryAfterSeconds;
  }
}

/** One provider's HTTP API, as the service uses it. `credential` is the API key or OAuth token. */
export interface ProviderAdapter {
  readonly name: EmailProvider;
  listAudiences(credential: string): Promise<Audience[]>;
  /** Adds or updates the member (idempotent: a repeat updates the same member); answers the provider's member id. */
  subscribe(credential: string, audienceId: string, subscriber: Subscriber): Promise<{ member_id: string }>;
}
