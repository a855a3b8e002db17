import type { Db } from "../core/db.ts";
import type { SecretBox } from "../core/secrets.ts";
import { exchangeEmailProvider1Code } from "./adapters.ts";
import { loadConnections, saveConnection } from "./connections.ts";
import { type ProviderConfig, providerAdapter, providerUrl } from "./index.ts";

/**
 * Connects email_provider_1 for a shop, as the end of its OAuth flow on the app's Integrations
 * page does: exchanges the authorization `code` (or takes an `accessToken` already obtained),
 * reads the account's audiences, and saves the token sealed with the audience `listId` (default:
 * the first). Sync stays as it was (off for a new connection). Answers the audience chosen.
 */
export async function connectEmailProvider1(
  deps: { db: Db; config: ProviderConfig; secrets: SecretBox },
  shopId: string,
  grant: { code: string } | { accessToken: string },
  listId?: string,
): Promise<{ list_id: string; list_name: string }> {
  const token =
    "accessToken" in grant
      ? grant.accessToken
      : (await exchangeEmailProvider1Code({ baseUrl: providerUrl(deps.config, "email_provider_1"), timeoutMs: deps.config.PROVIDER_TIMEOUT_MS }, grant.code)).access_token;
  const audiences = await providerAdapter(deps.config, "email_provider_1").listAudiences(token);
  const audience = listId === undefined ? audiences[0] : audiences.find((a) => a.id === listId);
  if (!audience) throw new Error(listId === undefined ? "the email_provider_1 account has no audience" : `email_provider_1 has no audience ${listId}; it has: ${audiences.map((a) => a.id).join(", ")}`);
  const current = (await loadConnections(deps.db, shopId)).email_provider_1;
  const now = new Date();
  await saveConnection(deps.db, shopId, { ...current, credential: deps.secrets.seal(token), list_id: audience.id, list_name: audience.name, verified_at: now, refused_at: null, connected_at: now });
  return { list_id: audience.id, list_name: audience.name };
}

/** Removes email_provider_1's connection (the token is dropped, sync turned off). */
export async function disconnectEmailProvider1(db: Db, shopId: string): Promise<void> {
  await db.query(
    "update integration_connections set credential = null, sync_enabled = false, verified_at = null, refused_at = null, connected_at = null, updated_at = now() where shop_id = $1 and provider = 'email_provider_1'",
    [shopId],
  );
}
