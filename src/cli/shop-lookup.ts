import type { Db } from "../core/db.ts";
import { isUuid } from "./args.ts";
import { CliError } from "./errors.ts";

/** Fails with a clear message unless the shop exists; a value that is not a uuid is no shop's id. */
export async function requireShop(db: Db, shopId: string, options: { lock?: boolean } = {}): Promise<void> {
  if (isUuid(shopId)) {
    const found = await db.query(`select 1 from shops where id = $1${options.lock ? " for share" : ""}`, [shopId]);
    if ((found.rowCount ?? 0) > 0) return;
  }
  throw new CliError(`Shop not found: ${shopId}`);
}
