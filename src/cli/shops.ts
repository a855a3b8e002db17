import { parseArgs } from "node:util";
import { withTransaction } from "../core/db.ts";
import { createApiKey, createShop } from "../db/api-keys.ts";
import { positionals, requireOption, usageErrors } from "./args.ts";
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

export const shopsCommands: Record<string, CommandParser> = { create };
