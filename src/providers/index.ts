import type { Config } from "../config.ts";
import { emailProvider1, emailProvider2, emailProvider3 } from "./adapters.ts";
import type { EmailProvider, ProviderAdapter } from "./types.ts";

export { EMAIL_PROVIDERS, ProviderError } from "./types.ts";
export type { EmailProvider } from "./types.ts";

/** The configuration the providers read (a subset of Config, so tests may pass their own). */
export type ProviderConfig = Pick<Config, "EMAIL_PROVIDER_1_URL" | "EMAIL_PROVIDER_2_URL" | "EMAIL_PROVIDER_3_URL" | "PROVIDER_EMULATOR_PORT" | "PROVIDER_TIMEOUT_MS">;

/** True when no provider URL is configured: `npm start` then runs the provider emulator. */
export function providersEmulated(config: ProviderConfig): boolean {
  return !config.EMAIL_PROVIDER_1_URL && !config.EMAIL_PROVIDER_2_URL && !config.EMAIL_PROVIDER_3_URL;
}

/** Each provider's API base: its *_URL, else the emulator's prefix on 127.0.0.1:PROVIDER_EMULATOR_PORT. */
export function providerUrl(config: ProviderConfig, provider: EmailProvider): string {
  const configured = { email_provider_1: config.EMAIL_PROVIDER_1_URL, email_provider_2: config.EMAIL_PROVIDER_2_URL, email_provider_3: config.EMAIL_PROVIDER_3_URL }[provider];
  return configured ?? `http://127.0.0.1:${config.PROVIDER_EMULATOR_PORT}/${provider}`;
}

const FACTORIES = { email_provider_1: emailProvider1, email_provider_2: emailProvider2, email_provider_3: emailProvider3 } as const;

/** The adapter of a provider under this configuration (cheap: no connection is kept). */
export function providerAdapter(config: ProviderConfig, provider: EmailProvider): ProviderAdapter {
  return FACTORIES[provider]({ baseUrl: providerUrl(config, provider), timeoutMs: config.PROVIDER_TIMEOUT_MS });
}
