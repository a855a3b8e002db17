import { z } from "zod";
import type { EmulatorOptions } from "./index.ts";

const count = z.coerce.number().int().min(0);
const rate = z.coerce.number().min(0).max(1);
const positive = z.coerce.number().positive();

const envSchema = z.object({
  PLATFORM_EMULATOR_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  EMULATOR_HOST: z.string().default("127.0.0.1"),
  EMULATOR_ACCESS_TOKEN: z.string().min(1).optional(),
  EMULATOR_SHOP_DOMAIN: z.string().min(1).optional(),
  EMULATOR_PRODUCTS: count.optional(),
  EMULATOR_VARIANTS_PER_PRODUCT: z.coerce.number().int().min(1).optional(),
  EMULATOR_LOCATIONS: z.coerce.number().int().min(1).optional(),
  EMULATOR_MARKETS: z.coerce.number().int().min(1).optional(),
  EMULATOR_COLLECTIONS: count.optional(),
  EMULATOR_SEED: z.coerce.number().int().optional(),
  EMULATOR_WEBHOOK_URL: z.url().optional(),
  /** Keeps the state across restarts in this JSON file; unset: in memory, seeded on every start. */
  EMULATOR_STATE_FILE: z.string().min(1).optional(),
  /** The app's secret: signs webhooks, as the service's PLATFORM_API_SECRET verifies them. */
  PLATFORM_API_SECRET: z.string().min(1).optional(),
  /** The online store's app embed: the script its pages load (the service's /storefront/widget.js). */
  EMULATOR_APP_EMBED_URL: z.url().optional(),
  /** The app proxy: /apps/<subpath>/* forwarded to this URL (the service's /storefront), signed with PLATFORM_API_SECRET. */
  EMULATOR_APP_PROXY_URL: z.url().optional(),
  EMULATOR_APP_PROXY_SUBPATH: z.string().regex(/^[a-z0-9_-]+$/).optional(),
  EMULATOR_THROTTLE_MAX: positive.optional(),
  EMULATOR_THROTTLE_RESTORE_RATE: positive.optional(),
  EMULATOR_MAX_QUERY_COST: positive.optional(),
  EMULATOR_FAULT_THROTTLE_RATE: rate.optional(),
  EMULATOR_FAULT_ERROR_RATE: rate.optional(),
  EMULATOR_FAULT_LATENCY_MS: count.optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

/** Keeps only the keys whose value is set, so defaults apply to the rest. */
function defined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Emulator options from the environment; throws naming each bad variable. */
export function emulatorOptionsFromEnv(env: NodeJS.ProcessEnv): { options: EmulatorOptions; logLevel: string } {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n"));
  const e = parsed.data;
  if (e.EMULATOR_WEBHOOK_URL && !e.PLATFORM_API_SECRET) throw new Error("EMULATOR_WEBHOOK_URL needs PLATFORM_API_SECRET to sign the webhooks");
  if (e.EMULATOR_APP_PROXY_URL && !e.PLATFORM_API_SECRET) throw new Error("EMULATOR_APP_PROXY_URL needs PLATFORM_API_SECRET to sign the proxied requests");
  const options: EmulatorOptions = {
    port: e.PLATFORM_EMULATOR_PORT,
    host: e.EMULATOR_HOST,
    ...defined({ accessToken: e.EMULATOR_ACCESS_TOKEN, shopDomain: e.EMULATOR_SHOP_DOMAIN, stateFile: e.EMULATOR_STATE_FILE }),
    seed: defined({
      products: e.EMULATOR_PRODUCTS,
      variantsPerProduct: e.EMULATOR_VARIANTS_PER_PRODUCT,
      locations: e.EMULATOR_LOCATIONS,
      markets: e.EMULATOR_MARKETS,
      collections: e.EMULATOR_COLLECTIONS,
      seed: e.EMULATOR_SEED,
    }),
    throttle: defined({ maximumAvailable: e.EMULATOR_THROTTLE_MAX, restoreRate: e.EMULATOR_THROTTLE_RESTORE_RATE, maxQueryCost: e.EMULATOR_MAX_QUERY_COST }),
    faults: defined({ throttleRate: e.EMULATOR_FAULT_THROTTLE_RATE, errorRate: e.EMULATOR_FAULT_ERROR_RATE, latencyMs: e.EMULATOR_FAULT_LATENCY_MS }),
    ...(e.EMULATOR_WEBHOOK_URL && e.PLATFORM_API_SECRET ? { webhooks: { url: e.EMULATOR_WEBHOOK_URL, secret: e.PLATFORM_API_SECRET } } : {}),
    storefront: {
      ...defined({ appEmbedUrl: e.EMULATOR_APP_EMBED_URL }),
      ...(e.EMULATOR_APP_PROXY_URL && e.PLATFORM_API_SECRET
        ? { appProxy: { url: e.EMULATOR_APP_PROXY_URL, secret: e.PLATFORM_API_SECRET, ...defined({ subpath: e.EMULATOR_APP_PROXY_SUBPATH }) } }
        : {}),
    },
  };
  return { options, logLevel: e.LOG_LEVEL };
}
