import type { Log } from "../../logger.ts";

/** What the emulator logs through: the service's pino logger, or nothing. */
export type EmulatorLog = Pick<Log, "info" | "warn" | "debug">;

const noop = () => undefined;
export const silentLog: EmulatorLog = { info: noop, warn: noop, debug: noop };
