import type { Db } from "../core/db.ts";
import { SecretBox } from "../core/secrets.ts";
import type { Log } from "../logger.ts";
import { PlatformClient } from "./client.ts";
import { ShopUninstalled } from "./installation.ts";

interface PlatformConnection {
  domain: string;
  graphqlUrl: string;
  accessToken: string;
}

interface PlatformRuntimeOptions {
  secretsKey: Buffer;
  /** The app's secret on the platform: the HMAC key of webhooks. */
  webhookSecret: string;
  timeoutMs: number;
  log: Log;
}

/**
 * What the service needs to talk to the platform: one client per shop per process (so its
 * cost pacing covers every job of that shop here), the webhook secret and the secret box.
 */
export class PlatformRuntime {
  readonly secrets: SecretBox;
  readonly webhookSecret: string;
  private readonly options: PlatformRuntimeOptions;
  private readonly clients = new Map<string, { fingerprint: string; client: PlatformClient }>();

  constructor(options: PlatformRuntimeOptions) {
    this.options = options;
    this.secrets = new SecretBox(options.secretsKey);
    this.webhookSecret = options.webhookSecret;
  }

  /**
   * Stores the shop's platform connection; the token is encrypted before it reaches the database.
   * An install, or a reinstall after app/uninstalled: the uninstalled mark is cleared, so the
   * shop's jobs and sends resume (its catalog is fully synced again by the next scheduled sync,
   * since the uninstall forgot its last full sync: src/webhooks/lifecycle/uninstalled.ts).
   */
  async connect(db: Db, shopId: string, connection: PlatformConnection): Promise<void> {
    await db.query(
      `update shops set platform_domain = $2, platform_graphql_url = $3, platform_access_token = $4,
         platform_connected_at = now(), platform_uninstalled_at = null, platform_redacted_at = null, updated_at = now()
       where id = $1`,
      [shopId, connection.domain, connection.graphqlUrl, this.secrets.seal(connection.accessToken)],
    );
    this.clients.delete(shopId);
  }

  /**
   * The shop's client, read from the database at every call: a token dropped or replaced in
   * another process (app/uninstalled, a reinstall) is never used from this one's cache, which is
   * keyed on the URL and the sealed token. An uninstalled shop throws ShopUninstalled, which ends
   * the asking job as skipped.
   */
  async clientFor(db: Db, shopId: string): Promise<PlatformClient> {
    const { rows } = await db.query<{ url: string | null; token: Buffer | null; uninstalled: boolean }>(
      "select platform_graphql_url as url, platform_access_token as token, platform_uninstalled_at is not null as uninstalled from shops where id = $1",
      [shopId],
    );
    const row = rows[0];
    if (row?.uninstalled) {
      this.clients.delete(shopId);
      throw new ShopUninstalled(shopId);
    }
    if (!row?.url || !row.token) throw new Error(`shop ${shopId} is not connected to the store platform`);
    const fingerprint = `${row.url}|${row.token.toString("base64")}`;
    const cached = this.clients.get(shopId);
    if (cached?.fingerprint === fingerprint) return cached.client;
    const client = new PlatformClient({
      graphqlUrl: row.url,
      accessToken: this.secrets.open(row.token),
      timeoutMs: this.options.timeoutMs,
      log: this.options.log,
    });
    this.clients.set(shopId, { fingerprint, client });
    return client;
  }
}
