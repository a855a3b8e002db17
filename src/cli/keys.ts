import { parseArgs } from "node:util";
import { withTransaction } from "../core/db.ts";
import { createApiKey, revokeApiKey } from "../db/api-keys.ts";
import { isUuid, positionals, requireOption, usageErrors } from "./args.ts";
import type { CommandParser } from "./context.ts";
import { CliError } from "./errors.ts";
import { printJson, printJsonLine, printText } from "./output.ts";
import { requireShop } from "./shop-lookup.ts";
import { formatTable, formatTime } from "./table.ts";

/** keys create --shop SHOP_ID */
const create: CommandParser = (args) => {
  const shopId = usageErrors(() => {
    const parsed = parseArgs({ args, options: { shop: { type: "string" } }, allowPositionals: true, strict: true });
    positionals(parsed.positionals, []);
    return requireOption(parsed.values.shop, "shop").trim();
  });
  return {
    ensureSchema: true,
    async run({ pool }) {
      const created = await withTransaction(pool, async (db) => {
        await requireShop(db, shopId, { lock: true });
        const { apiKey } = await createApiKey(db, shopId);
        return { shop_id: shopId, api_key: apiKey };
      });
      printJsonLine(created);
    },
  };
};

/** keys revoke KEY_OR_KEY_ID */
const revoke: CommandParser = (args) => {
  const keyOrId = usageErrors(() => {
    const parsed = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
    const [value] = positionals(parsed.positionals, ["KEY_OR_KEY_ID"]);
    return value ?? "";
  });
  return {
    ensureSchema: true,
    async run({ pool }) {
      if (!(await revokeApiKey(pool, keyOrId))) {
        // Never echo a key back: only an id is safe to print.
        const which = isUuid(keyOrId) ? ` ${keyOrId}` : "";
        throw new CliError(`No live API key${which} found (unknown or already revoked)`);
      }
      printJsonLine({ revoked: true });
    },
  };
};

interface KeyRow {
  id: string;
  shop_id: string;
  created_at: Date;
  revoked_at: Date | null;
}

/** keys list --shop SHOP_ID [--json]: ids and dates, never a key or its hash. */
const list: CommandParser = (args) => {
  const { shopId, json } = usageErrors(() => {
    const parsed = parseArgs({
      args,
      options: { shop: { type: "string" }, json: { type: "boolean", default: false } },
      allowPositionals: true,
      strict: true,
    });
    positionals(parsed.positionals, []);
    return { shopId: requireOption(parsed.values.shop, "shop").trim(), json: parsed.values.json };
  });
  return {
    ensureSchema: true,
    async run({ pool }) {
      await requireShop(pool, shopId);
      const { rows } = await pool.query<KeyRow>(
        "select id, shop_id, created_at, revoked_at from api_keys where shop_id = $1 order by created_at desc, id",
        [shopId],
      );
      if (json) {
        printJson(rows);
        return;
      }
      printText(
        formatTable(
          ["id", "created_at", "revoked_at"],
          rows.map((row) => [row.id, formatTime(row.created_at), formatTime(row.revoked_at)]),
        ),
      );
    },
  };
};

export const keysCommands: Record<string, CommandParser> = { create, revoke, list };
