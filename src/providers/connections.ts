import type { Db } from "../core/db.ts";
import type { SecretBox } from "../core/secrets.ts";
import { EMAIL_PROVIDERS, type EmailProvider } from "./types.ts";

/** One provider connection of a shop (table integration_connections); the credential stays sealed. */
export interface ConnectionRow {
  provider: EmailProvider;
  credential: Buffer | null;
  list_id: string | null;
  list_name: string | null;
  sync_enabled: boolean;
  verified_at: Date | null;
  refused_at: Date | null;
  connected_at: Date | null;
}

export type Connections = Record<EmailProvider, ConnectionRow>;

const empty = (provider: EmailProvider): ConnectionRow => ({
  provider,
  credential: null,
  list_id: null,
  list_name: null,
  sync_enabled: false,
  verified_at: null,
  refused_at: null,
  connected_at: null,
});

/** The shop's three connections (a provider never set up reads as an empty, disconnected row). */
export async function loadConnections(db: Db, shopId: string, lock = false): Promise<Connections> {
  const { rows } = await db.query<ConnectionRow>(
    `select provider, credential, list_id, list_name, sync_enabled, verified_at, refused_at, connected_at
     from integration_connections where shop_id = $1 ${lock ? "for update" : ""}`,
    [shopId],
  );
  const out = Object.fromEntries(EMAIL_PROVIDERS.map((p) => [p, empty(p)])) as Connections;
  for (const row of rows) out[row.provider] = row;
  return out;
}

export const isConnected = (row: ConnectionRow): boolean => row.credential !== null;

/** The provider last accepted the saved credential (and has not refused it since). */
export const isVerified = (row: ConnectionRow): boolean =>
  row.credential !== null && row.verified_at !== null && (row.refused_at === null || row.refused_at < row.verified_at);

/** Signups go to this provider now: connected, an audience chosen, sync on. */
export const syncsTo = (row: ConnectionRow): boolean => row.credential !== null && row.list_id !== null && row.sync_enabled;

/** Writes one connection whole (the credential sealed by the caller's SecretBox, or null). */
export async function saveConnection(db: Db, shopId: string, row: ConnectionRow): Promise<void> {
  await db.query(
    `insert into integration_connections (shop_id, provider, credential, list_id, list_name, sync_enabled, verified_at, refused_at, connected_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     on conflict (shop_id, provider) do update set
       credential = excluded.credential, list_id = excluded.list_id, list_name = excluded.list_name, sync_enabled = excluded.sync_enabled,
       verified_at = excluded.verified_at, refused_at = excluded.refused_at, connected_at = excluded.connected_at, updated_at = now()`,
    [shopId, row.provider, row.credential, row.list_id, row.list_name, row.sync_enabled, row.verified_at, row.refused_at, row.connected_at],
  );
}

/** The plain credential of a connection, or undefined when none is saved. */
export function openCredential(secrets: SecretBox, row: ConnectionRow): string | undefined {
  return row.credential === null ? undefined : secrets.open(row.credential);
}

/** Records what the provider said of the saved credential (by a sync job); a credential changed since is left alone. */
export async function recordCredentialVerdict(db: Db, shopId: string, provider: EmailProvider, sealed: Buffer, accepted: boolean): Promise<void> {
  await db.query(
    `update integration_connections set ${accepted ? "verified_at" : "refused_at"} = now(), updated_at = now()
     where shop_id = $1 and provider = $2 and credential = $3`,
    [shopId, provider, sealed],
  );
}
