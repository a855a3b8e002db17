import { createHash, randomBytes } from "node:crypto";
import type { Db } from "../core/db.ts";
import { isUuid } from "../core/params.ts";

const KEY_PREFIX = "pbk_";

export function hashApiKey(key: string): Buffer {
  return createHash("sha256").update(key, "utf8").digest();
}

function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString("base64url");
}

/** Stores only the key's hash; the key itself exists once, in the caller's hands. */
export async function createApiKey(db: Db, shopId: string, key: string = generateApiKey()): Promise<{ keyId: string; apiKey: string }> {
  const { rows } = await db.query<{ id: string }>(
    "insert into api_keys (shop_id, key_hash) values ($1, $2) returning id",
    [shopId, hashApiKey(key)],
  );
  const row = rows[0];
  if (!row) throw new Error("api key insert returned no row");
  return { keyId: row.id, apiKey: key };
}

/** Revokes by the key itself or by its id; answers whether a live key was revoked. */
export async function revokeApiKey(db: Db, keyOrId: string): Promise<boolean> {
  const result = isUuid(keyOrId)
    ? await db.query("update api_keys set revoked_at = now() where id = $1 and revoked_at is null", [keyOrId])
    : await db.query("update api_keys set revoked_at = now() where key_hash = $1 and revoked_at is null", [hashApiKey(keyOrId)]);
  return (result.rowCount ?? 0) > 0;
}

export async function createShop(db: Db, name: string, options: { demo?: boolean } = {}): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    "insert into shops (name, is_demo) values ($1, $2) returning id",
    [name, options.demo ?? false],
  );
  const row = rows[0];
  if (!row) throw new Error("shop insert returned no row");
  return row.id;
}
