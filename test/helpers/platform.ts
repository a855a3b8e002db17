import { randomBytes } from "node:crypto";
import { createLogger } from "../../src/logger.ts";
import { PlatformRuntime } from "../../src/platform/runtime.ts";

export const TEST_WEBHOOK_SECRET = "test-webhook-secret-0123456789abcdef";

export function testPlatformRuntime(): PlatformRuntime {
  return new PlatformRuntime({
    secretsKey: randomBytes(32),
    webhookSecret: TEST_WEBHOOK_SECRET,
    timeoutMs: 5_000,
    log: createLogger("silent"),
  });
}
