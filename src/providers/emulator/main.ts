import { startProviderEmulator } from "./index.ts";

/** `node src/providers/emulator/main.ts`: the provider emulator alone, on PROVIDER_EMULATOR_PORT (3002). */
const port = Number(process.env.PROVIDER_EMULATOR_PORT ?? 3002);
const emulator = await startProviderEmulator({ port, host: process.env.PROVIDER_EMULATOR_HOST ?? "127.0.0.1" });
process.stdout.write(`e-mail provider emulator listening on ${emulator.origin}\n`);
const stop = () => void emulator.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
