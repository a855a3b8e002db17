import { parseArgs } from "node:util";
import { withTransaction } from "../core/db.ts";
import { createApiKey, createShop } from "../db/api-keys.ts";
import { publicUrl } from "../channels/public-url.ts";
import { installUrl, signInstallBinding } from "../platform/oauth/install-binding.ts";
import { InstallConflict, installStore } from "../platform/oauth/install.ts";
import { createPlatformRuntime } from "../runtime/platform.ts";
import { secretFromEnvOrFile } from "../runtime/local-secrets.ts";
import { positionals, requireOption, usageErrors } from "./args.ts";
import { CliError } from "./errors.ts";
import { requireShop } from "./shop-lookup.ts";
import type { CommandParser } from "./context.ts";
import { UsageError } from "./errors.ts";
import { printJsonLine } from "./output.ts";

/** shops create --name NAME: the shop and its first key, together or not at all. */
const create: CommandParser = (args) => {
  const name = usageErrors(() => {
    const parsed = parseArgs({ args, options: { name: { type: "string" } }, allowPositionals: true, strict: true });
    positionals(parsed.positionals, []);
    const value = requireOption(parsed.values.name, "name").trim();
    if (value.length > 200) throw new UsageError("--name must be at most 200 characters");
    return value;
  });
  return {
    ensureSchema: true,
    async run({ pool }) {
      const created = await withTransaction(pool, async (db) => {
        const shopId = await createShop(db, name);
        const { apiKey } = await createApiKey(db, shopId);
        return { shop_id: shopId, api_key: apiKey };
      });
      printJsonLine(created);
    },
  };
};

/** A store's own domain, as the install accepts it (the library's check, on myshopify.com). */
const STORE_DOMAIN = /^[a-z0-9][a-z0-9_-]*\.myshopify\.com$/;

/**
 * shops install --shop STORE.myshopify.com [--id SHOP_ID]: prints the install link the merchant
 * opens (`{APP_URL}/auth?shop=...`). With --id, the link carries a binding of that store to that
 * shop, signed with the app's secret (decision 0220), so the install connects that shop row;
 * without, the install connects the shop already on that store, or creates one.
 */
const install: CommandParser = (args) => {
  const { store, shopId } = usageErrors(() => {
    const parsed = parseArgs({ args, options: { shop: { type: "string" }, id: { type: "string" } }, allowPositionals: true, strict: true });
    positionals(parsed.positionals, []);
    const value = requireOption(parsed.values.shop, "shop").trim().toLowerCase();
    if (!STORE_DOMAIN.test(value)) throw new UsageError("--shop must be the store's myshopify.com domain (example.myshopify.com)");
    return { store: value, shopId: parsed.values.id };
  });
  return {
    ensureSchema: true,
    async run({ pool, config }) {
      const { rows } = await pool.query<{ id: string }>("select id from shops where platform_domain = $1", [store]);
      const holder = rows[0]?.id;
      let binding: string | undefined;
      if (shopId !== undefined) {
        await requireShop(pool, shopId);
        if (holder !== undefined && holder !== shopId) throw new CliError(`${store} is connected to another shop (${holder})`);
        binding = signInstallBinding(await secretFromEnvOrFile(config.PLATFORM_API_SECRET, config.dataDir, "platform-api-secret"), shopId, store);
      }
      const appUrl = config.APP_URL ?? publicUrl(config);
      printJsonLine({ install_url: installUrl(appUrl, store, binding), shop: store, shop_id: shopId ?? holder ?? null });
    },
  };
};

/**
 * shops connect --id SHOP_ID --shop STORE.myshopify.com: connects the shop to a store with a custom
 * app's Admin API token, for merchants who install that way (no OAuth). The token is read from
 * PLATFORM_ACCESS_TOKEN, never from the command line (which shell history and `ps` keep), and is
 * sealed with SECRETS_KEY as an OAuth install's is (decision 0220's rules: a store another shop
 * holds is refused).
 */
const connect: CommandParser = (args) => {
  const { store, shopId } = usageErrors(() => {
    const parsed = parseArgs({ args, options: { shop: { type: "string" }, id: { type: "string" } }, allowPositionals: true, strict: true });
    positionals(parsed.positionals, []);
    const value = requireOption(parsed.values.shop, "shop").trim().toLowerCase();
    if (!STORE_DOMAIN.test(value)) throw new UsageError("--shop must be the store's myshopify.com domain (example.myshopify.com)");
    return { store: value, shopId: requireOption(parsed.values.id, "id") };
  });
  return {
    ensureSchema: true,
    async run({ pool, config, log }) {
      const accessToken = config.PLATFORM_ACCESS_TOKEN;
      if (!accessToken) throw new UsageError("set PLATFORM_ACCESS_TOKEN to the custom app's Admin API access token");
      await requireShop(pool, shopId);
      try {
        await installStore(pool, await createPlatformRuntime(config, log), { domain: store, accessToken }, shopId);
      } catch (error) {
        if (error instanceof InstallConflict) throw new CliError(`${store}: ${error.message}`);
        throw error;
      }
      printJsonLine({ shop_id: shopId, shop: store, connected: true });
    },
  };
};

export const shopsCommands: Record<string, CommandParser> = { create, install, connect };
