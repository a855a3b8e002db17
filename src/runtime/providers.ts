import type pg from "pg";
import type { Config } from "../config.ts";
import type { Log } from "../logger.ts";
import { loadConnections } from "../providers/connections.ts";
import { providersEmulated } from "../providers/index.ts";
import type { PlatformRuntime } from "../platform/runtime.ts";

/**
 * `npm start` with no EMAIL_PROVIDER_*_URL: starts the e-mail provider emulator on
 * PROVIDER_EMULATOR_PORT (the adapters default to it) and connects the demo shop's
 * email_provider_1 with the emulator's seeded OAuth token, as the app's Integrations page would
 * (sync stays off). Answers how to stop the emulator, if one was started.
 */
export async function startDemoProviders(pool: pg.Pool, platform: PlatformRuntime, config: Config, log: Log): Promise<(() => Promise<void>) | undefined> {
  if (!providersEmulated(config)) return undefined;
  // Loaded only here: production processes never load the emulator.
  const { PROVIDER_SEED, startProviderEmulator } = await import("../providers/emulator/index.ts");
  const { connectEmailProvider1 } = await import("../providers/oauth.ts");
  const emulator = await startProviderEmulator({ port: config.PROVIDER_EMULATOR_PORT, log: log.child({ component: "provider-emulator" }) });
  const { rows } = await pool.query<{ id: string }>("select id from shops where is_demo");
  const shopId = rows[0]?.id;
  if (shopId && (await loadConnections(pool, shopId)).email_provider_1.credential === null) {
    await connectEmailProvider1({ db: pool, config, secrets: platform.secrets }, shopId, { accessToken: PROVIDER_SEED.email_provider_1.token });
    log.info({ shopId }, "demo shop: email_provider_1 connected to the provider emulator");
  }
  return () => emulator.close();
}
