import { parseArgs } from "node:util";
import { migrate } from "../db/migrate.ts";
import { positionals, usageErrors } from "./args.ts";
import type { CommandParser } from "./context.ts";
import { printText } from "./output.ts";

export const migrateCommand: CommandParser = (args) => {
  usageErrors(() => positionals(parseArgs({ args, options: {}, allowPositionals: true, strict: true }).positionals, []));
  return {
    ensureSchema: false,
    async run({ pool, log }) {
      const applied = await migrate(pool, log);
      if (applied.length === 0) printText("No migrations to apply: the database is up to date.");
      else printText(applied.map((name) => `applied ${name}`).join("\n"));
    },
  };
};
