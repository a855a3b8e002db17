import { type CommandParser, runWithContext } from "./context.ts";
import { EXIT_ERROR, EXIT_OK, EXIT_USAGE, UsageError, errorLine } from "./errors.ts";
import { integrationsCommands } from "./integrations.ts";
import { jobsCommands } from "./jobs.ts";
import { keysCommands } from "./keys.ts";
import { messagesCommands } from "./messages.ts";
import { migrateCommand } from "./migrate.ts";
import { plansCommands } from "./plans.ts";
import { shopsCommands } from "./shops.ts";
import { USAGE } from "./usage.ts";

/** A command, or a group of subcommands. */
const COMMANDS: Record<string, CommandParser | Record<string, CommandParser>> = {
  migrate: migrateCommand,
  shops: shopsCommands,
  keys: keysCommands,
  jobs: jobsCommands,
  messages: messagesCommands,
  integrations: integrationsCommands,
  plans: plansCommands,
};

const HELP = new Set(["help", "--help", "-h"]);

function wantsHelp(args: string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === "--help" || arg === "-h");
}

function usage(message?: string): number {
  if (message) process.stderr.write(`error: ${message}\n\n`);
  process.stderr.write(USAGE);
  return message ? EXIT_USAGE : EXIT_OK;
}

function resolve(argv: string[]): { parser: CommandParser; args: string[] } | string {
  const [name, ...rest] = argv;
  const entry = name === undefined ? undefined : COMMANDS[name];
  if (!entry) return `unknown command: ${name}`;
  if (typeof entry === "function") return { parser: entry, args: rest };
  const [sub, ...args] = rest;
  const parser = sub === undefined ? undefined : entry[sub];
  if (!parser) return sub === undefined ? `${name}: missing subcommand` : `unknown command: ${name} ${sub}`;
  return { parser, args };
}

export async function main(argv: string[]): Promise<number> {
  const [first] = argv;
  if (first === undefined) return usage("no command given");
  if (HELP.has(first) || wantsHelp(argv)) return usage();
  const resolved = resolve(argv);
  if (typeof resolved === "string") return usage(resolved);
  try {
    await runWithContext(resolved.parser(resolved.args));
    return EXIT_OK;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${errorLine(error)} (see: npm run cli -- help)\n`);
      return EXIT_USAGE;
    }
    const level = process.env.LOG_LEVEL;
    const detail = (level === "debug" || level === "trace") && error instanceof Error ? error.stack : undefined;
    process.stderr.write(`error: ${errorLine(error)}\n${detail ? `${detail}\n` : ""}`);
    return EXIT_ERROR;
  }
}

process.exitCode = await main(process.argv.slice(2));
