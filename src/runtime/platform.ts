import type { Config } from "../config.ts";
import type { Log } from "../logger.ts";
import { PlatformRuntime } from "../platform/runtime.ts";
import { secretFromEnvOrFile } from "./local-secrets.ts";

/** The platform runtime from the environment, with generated local secrets on the embedded default. */
export async function createPlatformRuntime(config: Config, log: Log): Promise<PlatformRuntime> {
  const secretsKey = Buffer.from(await secretFromEnvOrFile(config.SECRETS_KEY, config.dataDir, "secrets.key"), "base64");
  const webhookSecret = await secretFromEnvOrFile(config.PLATFORM_API_SECRET, config.dataDir, "platform-api-secret");
  return new PlatformRuntime({ secretsKey, webhookSecret, timeoutMs: config.PLATFORM_TIMEOUT_MS, log });
}
