import { parseArgs } from "node:util";
import { loadConfig } from "../config.ts";
import { SecretBox } from "../core/secrets.ts";
import { connectEmailProvider1, disconnectEmailProvider1 } from "../providers/oauth.ts";
import { ProviderError } from "../providers/types.ts";
import { secretFromEnvOrFile } from "../runtime/local-secrets.ts";
import { positionals, requireOption, usageErrors } from "./args.ts";
import type { CommandParser } from "./context.ts";
import { CliError } from "./errors.ts";
import { printJsonLine } from "./output.ts";
import { requireShop } from "./shop-lookup.ts";

/**
 * integrations connect-email-provider-1 --shop SHOP_ID --code CODE [--list LIST_ID]: the end of
 * email_provider_1's OAuth flow for an operator (the app's Integrations page does the same): the
 * authorization code is exchanged for a token, saved encrypted. Against the provider emulator any
 * code but "invalid" works. Sync stays off: PATCH /account/integrations turns it on.
 */
const connect: CommandParser = (args) => {
  const options = usageErrors(() => {
    const parsed = parseArgs({ args, options: { shop: { type: "string" }, code: { type: "string" }, list: { type: "string" } }, allowPositionals: true, strict: true });
    positionals(parsed.positionals, []);
    return { shopId: requireOption(parsed.values.shop, "shop").trim(), code: requireOption(parsed.values.code, "code"), listId: parsed.values.list };
  });
  return {
    ensureSchema: true,
    async run({ pool }) {
      await requireShop(pool, options.shopId);
      const config = loadConfig();
      const secrets = new SecretBox(Buffer.from(await secretFromEnvOrFile(config.SECRETS_KEY, config.dataDir, "secrets.key"), "base64"));
      try {
        const audience = await connectEmailProvider1({ db: pool, config, secrets }, options.shopId, { code: options.code }, options.listId);
        printJsonLine({ shop_id: options.shopId, provider: "email_provider_1", connected: true, ...audience });
      } catch (error) {
        if (error instanceof ProviderError) throw new CliError(error.message);
        throw error;
      }
    },
  };
};

/** integrations disconnect-email-provider-1 --shop SHOP_ID */
const disconnect: CommandParser = (args) => {
  const shopId = usageErrors(() => {
    const parsed = parseArgs({ args, options: { shop: { type: "string" } }, allowPositionals: true, strict: true });
    positionals(parsed.positionals, []);
    return requireOption(parsed.values.shop, "shop").trim();
  });
  return {
    ensureSchema: true,
    async run({ pool }) {
      await requireShop(pool, shopId);
      await disconnectEmailProvider1(pool, shopId);
      printJsonLine({ shop_id: shopId, provider: "email_provider_1", connected: false });
    },
  };
};

export const integrationsCommands: Record<string, CommandParser> = {
  "connect-email-provider-1": connect,
  "disconnect-email-provider-1": disconnect,
};
