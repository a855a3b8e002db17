import { parseArgs } from "node:util";
import { MESSAGE_AREAS } from "../messaging/areas.ts";
import { countFailedMessages, listFailedMessages, resendAllFailedMessages, resendFailedMessages } from "../messaging/failed.ts";
import { isUuid, oneOf, positionals, positiveInteger, usageErrors } from "./args.ts";
import type { CommandParser } from "./context.ts";
import { CliError, UsageError } from "./errors.ts";
import { printJson, printJsonLine, printNotice, printText } from "./output.ts";
import { requireShop } from "./shop-lookup.ts";
import { formatTable, formatTime } from "./table.ts";

const DEFAULT_LIMIT = 50;

const filterOptions = { shop: { type: "string" }, area: { type: "string" } } as const;

/** messages failed [--shop ID] [--area A] [--limit N] [--json]: failed messages of both areas, newest first, with their reason. */
const failed: CommandParser = (args) => {
  const options = usageErrors(() => {
    const parsed = parseArgs({ args, options: { ...filterOptions, limit: { type: "string" }, json: { type: "boolean", default: false } }, allowPositionals: true, strict: true });
    positionals(parsed.positionals, []);
    return {
      shop: parsed.values.shop?.trim(),
      area: oneOf(parsed.values.area, "area", MESSAGE_AREAS),
      limit: positiveInteger(parsed.values.limit, "limit", DEFAULT_LIMIT),
      json: parsed.values.json,
    };
  });
  return {
    ensureSchema: true,
    async run({ pool }) {
      if (options.shop !== undefined) await requireShop(pool, options.shop);
      const filter = { shopId: options.shop, area: options.area };
      const listed = await listFailedMessages(pool, { ...filter, limit: options.limit });
      if (options.json) {
        printJson(listed);
        return;
      }
      if (listed.length === 0) {
        printText("No failed messages.");
        return;
      }
      printText(
        formatTable(
          ["id", "area", "shop", "stage", "channel", "recipient", "attempts", "created", "error"],
          listed.map((m) => [m.id, m.area, m.shop_id, m.stage, m.channel, m.recipient, String(m.attempts), formatTime(m.created_at), m.error?.replace(/\s+/g, " ").slice(0, 160) ?? "-"]),
        ),
      );
      if (listed.length === options.limit) {
        printNotice(`Showing the newest ${options.limit} of ${await countFailedMessages(pool, filter)} failed messages; --limit N shows more.`);
      }
    },
  };
};

/**
 * messages retry (--id ID ... | --all) [--shop ID] [--area A]: failed messages sent again (the same
 * rows and message ids, retried for SEND_RETRY_HOURS like a first send). --id names messages that
 * must all be failed (else nothing is queued); --all takes every failed one the filters leave,
 * every shop's without --shop.
 */
const retry: CommandParser = (args) => {
  const options = usageErrors(() => {
    const parsed = parseArgs({
      args,
      options: { ...filterOptions, id: { type: "string", multiple: true }, all: { type: "boolean", default: false } },
      allowPositionals: true,
      strict: true,
    });
    positionals(parsed.positionals, []);
    const ids = [...new Set(parsed.values.id?.map((id) => id.trim().toLowerCase()) ?? [])];
    if ((ids.length > 0) === parsed.values.all) throw new UsageError("give --id ID (one or more) or --all, not both");
    for (const id of ids) if (!isUuid(id)) throw new UsageError(`--id must be a message id (a uuid): ${id}`);
    return { shop: parsed.values.shop?.trim(), area: oneOf(parsed.values.area, "area", MESSAGE_AREAS), ids, all: parsed.values.all };
  });
  return {
    ensureSchema: true,
    async run({ pool, config }) {
      if (options.shop !== undefined) await requireShop(pool, options.shop);
      const filter = { shopId: options.shop, area: options.area };
      const queued = { back_in_stock: 0, preorders: 0 };
      if (!options.all) {
        const found = new Set((await listFailedMessages(pool, { ...filter, ids: options.ids, limit: options.ids.length })).map((m) => m.id));
        const missing = options.ids.filter((id) => !found.has(id));
        if (missing.length > 0) throw new CliError(`Not a failed message${options.shop || options.area ? " of these filters" : ""}: ${missing.join(", ")} (nothing was queued; see: messages failed)`);
        Object.assign(queued, await resendFailedMessages(pool, { ...filter, ids: options.ids, limit: options.ids.length }, config.SEND_RETRY_HOURS));
      } else {
        if (options.shop === undefined) printNotice("No --shop: retrying the failed messages of every shop.");
        Object.assign(queued, await resendAllFailedMessages(pool, filter, config.SEND_RETRY_HOURS));
      }
      printJsonLine({ ...queued, shop_id: options.shop ?? null });
    },
  };
};

export const messagesCommands: Record<string, CommandParser> = { failed, retry };
