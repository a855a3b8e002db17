import Fastify from "fastify";
import { EMAIL_PROVIDERS, type EmailProvider } from "../types.ts";
import { registerProviderRoutes } from "./routes.ts";
import { type EmulatedMember, PROVIDER_SEED, type ProviderFaults, type ProviderStats, createProviderStates } from "./state.ts";

export { PROVIDER_SEED };
export type { EmulatedMember, ProviderFaults, ProviderStats };

interface ProviderEmulatorOptions {
  /** 0 (the default): any free port. */
  port?: number;
  host?: string;
  log?: { info(fields: object, message: string): void };
}

export interface ProviderEmulator {
  readonly origin: string;
  readonly port: number;
  /** Each provider's API base (what EMAIL_PROVIDER_N_URL would be). */
  readonly urls: Readonly<Record<EmailProvider, string>>;
  /** Replaces one provider's faults (or every provider's without a name); `{}` turns them off. */
  setFaults(faults: ProviderFaults, provider?: EmailProvider): void;
  /** The members of an audience, by e-mail; empty for an unknown audience. */
  members(provider: EmailProvider, audienceId: string): EmulatedMember[];
  stats(provider: EmailProvider): ProviderStats;
  /** A new valid credential (API key or OAuth token) for the provider's demo account. */
  issueCredential(provider: EmailProvider): string;
  close(): Promise<void>;
}

/**
 * Starts the local e-mail provider emulator: the three providers' HTTP APIs under
 * /email_provider_1, /email_provider_2 and /email_provider_3, and the admin routes (faults,
 * members, stats). In memory, seeded on every start (PROVIDER_SEED). See README.md here.
 */
export async function startProviderEmulator(options: ProviderEmulatorOptions = {}): Promise<ProviderEmulator> {
  const states = createProviderStates();
  const app = Fastify({ logger: false });
  registerProviderRoutes(app, states);
  await app.listen({ port: options.port ?? 0, host: options.host ?? "127.0.0.1" });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("the provider emulator is not listening on a TCP port");
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const origin = `http://${host}:${address.port}`;
  options.log?.info({ url: origin }, "e-mail provider emulator listening");
  const urls = Object.fromEntries(EMAIL_PROVIDERS.map((p) => [p, `${origin}/${p}`])) as Record<EmailProvider, string>;
  return {
    origin,
    port: address.port,
    urls,
    setFaults(faults, provider) {
      for (const name of provider ? [provider] : EMAIL_PROVIDERS) states[name].faults = { ...faults };
    },
    members(provider, audienceId) {
      for (const account of states[provider].accounts.values()) {
        const audience = account.audiences.get(audienceId);
        if (audience) return [...audience.members.values()].map((m) => ({ ...m }));
      }
      return [];
    },
    stats: (provider) => ({ ...states[provider].stats }),
    issueCredential: (provider) => states[provider].issueCredential(),
    close: () => app.close(),
  };
}
