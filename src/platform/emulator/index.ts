import { isDeepStrictEqual } from "node:util";
import { AppInstallation, DEFAULT_ACCESS_SCOPES } from "./app-installation.ts";
import type { Context, ShopInfo } from "./context.ts";
import { Faults, type FaultSettings } from "./faults.ts";
import { type EmulatorStats, GraphqlEndpoint } from "./graphql-endpoint.ts";
import { type EmulatorLog, silentLog } from "./log.ts";
import type { OAuthAppOptions } from "./oauth/routes.ts";
import { loadSchema } from "./schema.ts";
import { type SeedOptions, SEED_DEFAULTS, seedStore } from "./seed.ts";
import { API_VERSION, buildServer } from "./server.ts";
import { deserializeStore, serializeStore } from "./snapshot.ts";
import { DEFAULT_SAVE_DELAY_MS, StateFile, readStateFile } from "./state-file.ts";
import type { Location } from "./model.ts";
import type { Store } from "./store.ts";
import type { StorefrontOptions } from "./storefront/options.ts";
import { Throttle, type ThrottleSettings } from "./throttle.ts";
import { webhookEvents } from "./webhooks/events.ts";
import { type Delivery, type WebhookOptions, WebhookSender } from "./webhooks/sender.ts";

export type { OAuthAppOptions };
export type { Delivery, EmulatorStats, FaultSettings, SeedOptions, Store, StorefrontOptions, ThrottleSettings, WebhookOptions };

export interface EmulatorOptions {
  /** 0 (the default): any free port. */
  port?: number;
  host?: string;
  accessToken?: string;
  shopDomain?: string;
  /** The app's API client id, which its reserved metafield namespaces carry (`$app` is `app--<appId>`); default 4242. */
  appId?: number;
  seed?: SeedOptions;
  throttle?: Partial<ThrottleSettings>;
  faults?: FaultSettings;
  webhooks?: WebhookOptions;
  log?: EmulatorLog;
  /**
   * A JSON file that keeps the state across restarts: loaded on start when it exists (instead of
   * seeding), written shortly after each change and on close. Unset (the default, as tests use it):
   * in memory only, seeded on every start.
   */
  stateFile?: string;
  /** How long after a change the state file is written (default 500 ms). */
  saveDelayMs?: number;
  /** The online store's app embed script and app proxy (storefront/options.ts); unset: pages without the app. */
  storefront?: StorefrontOptions;
  /** The access scopes the app holds at start (default DEFAULT_ACCESS_SCOPES: no read_translations); a state file's saved scopes win over them. */
  accessScopes?: readonly string[];
  /**
   * The app's client credentials: the store then installs it through OAuth (`/admin/oauth/authorize`,
   * `/admin/oauth/access_token`, oauth/routes.ts), issuing `accessToken`. Unset: no OAuth endpoints.
   */
  oauth?: OAuthAppOptions;
}

export interface Emulator {
  readonly origin: string;
  readonly graphqlUrl: string;
  readonly accessToken: string;
  readonly shopDomain: string;
  /** The app's API client id: `$app:x` is stored as `app--<appId>--x`. */
  readonly appId: number;
  /** The live store: tests may read and change it directly (through its touch/set methods). */
  readonly store: Store;
  stats(): EmulatorStats;
  /** Replaces the fault settings; `{}` turns faults off. */
  setFaults(faults: FaultSettings): void;
  /** Changes throttle limits; every bucket starts full under the new ones. */
  setThrottle(throttle: Partial<ThrottleSettings>): void;
  /**
   * Sets a variant's stock at a location as a merchant's change in the platform's admin does (what
   * `POST /admin/inventory` calls): the level, then its inventory_levels/update webhook. Answers
   * the webhook id (null without `webhooks`).
   */
  setInventory(variantIndex: number, location: Location, available: number): string | null;
  /** The app's access scopes (grant, revoke), the Flow triggers it sent, and product translations. */
  readonly app: AppInstallation;
  /** Webhook deliveries so far, oldest first (empty without `webhooks`). */
  readonly deliveries: readonly Delivery[];
  /** Sends a delivery again with the same id and body. */
  redeliver(webhookId: string): Promise<Delivery>;
  /** Resolves when no webhook delivery or retry is under way. */
  webhooksSettled(): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_APP_ID = 4242;

/** Starts the store platform emulator: a seeded store behind the Admin GraphQL API and the admin routes. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const log = options.log ?? silentLog;
  const accessToken = options.accessToken ?? "emulator-token";
  const shop: ShopInfo = { name: "Demo Store", domain: options.shopDomain ?? "demo.platform.local", currencyCode: "USD" };
  const installation = new AppInstallation(options.accessScopes ?? DEFAULT_ACCESS_SCOPES);
  const { store, state } = await openStore(options, installation, log);
  const sender = options.webhooks ? new WebhookSender(options.webhooks, shop.domain, log) : undefined;
  const appId = options.appId ?? DEFAULT_APP_ID;
  const context: Context = { store, shop, events: webhookEvents(store, sender, installation), appId, app: installation };
  const throttle = new Throttle(options.throttle);
  const faults = new Faults(options.faults, options.seed?.seed ?? SEED_DEFAULTS.seed);
  const stats: EmulatorStats = { requests: 0, throttled: 0, serverErrors: 0, costSpent: 0 };
  const changed = state ? () => state.changed() : undefined;
  const endpoint = new GraphqlEndpoint({ schema: loadSchema(), context, throttle, faults, accessToken, stats, ...(changed ? { onMutation: changed } : {}) });
  const app = buildServer(endpoint, context, changed, options.storefront, options.oauth ? { app: options.oauth, accessToken } : undefined);
  await app.listen({ port: options.port ?? 0, host: options.host ?? "127.0.0.1" });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("the emulator is not listening on a TCP port");
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const origin = `http://${host}:${address.port}`;

  return {
    origin,
    graphqlUrl: `${origin}/admin/api/${API_VERSION}/graphql.json`,
    accessToken,
    shopDomain: shop.domain,
    appId,
    store,
    app: installation,
    stats: () => ({ ...stats }),
    setFaults: (f) => faults.configure(f),
    setThrottle: (t) => throttle.configure(t),
    setInventory: (variantIndex, location, available) => {
      const webhookId = context.events.inventoryLevelUpdated(store.setAvailable(variantIndex, location, available));
      changed?.();
      return webhookId;
    },
    deliveries: sender?.deliveries ?? [],
    redeliver: async (webhookId) => {
      if (!sender) throw new Error("the emulator sends no webhooks: start it with the webhooks option");
      return sender.redeliver(webhookId);
    },
    webhooksSettled: async () => sender?.settled(),
    close: async () => {
      await app.close();
      try {
        await state?.flush();
      } finally {
        await sender?.close();
      }
    },
  };
}

/** Far more ids than the emulator creates between two saves (a save follows a change within 500 ms). */
const RESTORE_ID_GAP = 10_000;

/**
 * The store: from the state file when there is one, else seeded (and, with a state file, saved at
 * once, so an unwritable path fails the start rather than a later save). A state file also holds
 * what lives beside the store: drafts and order edits, and the app's installation (restored into
 * `app`; a file saved before it was kept leaves `app` as started).
 */
async function openStore(options: EmulatorOptions, app: AppInstallation, log: EmulatorLog): Promise<{ store: Store; state: StateFile | undefined }> {
  const seed = { ...SEED_DEFAULTS, ...options.seed };
  if (!options.stateFile) return { store: seedStore(seed), state: undefined };
  const file = options.stateFile;
  const text = await readStateFile(file);
  let store: Store;
  let grewFrom: Record<string, number> = seed;
  if (text === undefined) {
    // Seconds since the epoch: past the ids of any earlier emulator that ran without this file.
    store = seedStore(seed, { idOffset: Math.floor(Date.now() / 1000) });
  } else {
    let restored: ReturnType<typeof deserializeStore>;
    try {
      // Ids handed out after the last save, before a crash, are never handed out again.
      restored = deserializeStore(text, RESTORE_ID_GAP);
    } catch (error) {
      // Never seed over it: that would hand out the ids it holds a second time.
      throw new Error(`the platform emulator state ${file} cannot be loaded (move it away to start from a new seed): ${(error as Error).message}`, {
        cause: error,
      });
    }
    ({ store, seed: grewFrom } = restored);
    if (restored.app) {
      // What the merchant granted or revoked since is kept, as the seed is.
      if (options.accessScopes && !isDeepStrictEqual([...new Set(options.accessScopes)].sort(), restored.app.accessScopes)) {
        log.warn({ file, saved: restored.app.accessScopes, requested: options.accessScopes }, "platform emulator state kept; its access scopes differ from the requested ones");
      }
      app.restore(restored.app);
    }
    if (!isDeepStrictEqual(restored.seed, seed)) {
      log.warn({ file, saved: restored.seed, requested: seed }, "platform emulator state kept; its seed options differ from the requested ones (move the file away to reseed)");
    }
  }
  const state = new StateFile(file, options.saveDelayMs ?? DEFAULT_SAVE_DELAY_MS, log, () => serializeStore(store, grewFrom, app));
  if (text === undefined) await state.flush();
  log.info({ file, restored: text !== undefined }, "platform emulator state file");
  return { store, state };
}
