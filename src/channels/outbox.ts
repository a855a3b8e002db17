import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { ChannelError } from "./errors.ts";
import type { ChannelName } from "./types.ts";

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** The message id names files and Message-IDs: refuse anything that is not a plain token. */
export function assertMessageId(channel: ChannelName, id: string): void {
  if (!SAFE_ID.test(id)) throw new ChannelError(channel, `Invalid message id: ${JSON.stringify(id.slice(0, 60))}`, false);
}

/** `DATA_DIR/outbox`, where messages go when no provider is configured. */
export function outboxDir(dataDir: string): string {
  return path.join(dataDir, "outbox");
}

/**
 * Writes `dir/name` atomically: a reader sees the whole file or none. A second write of the
 * same name (a retry) replaces the first.
 */
export async function writeOutboxFile(channel: ChannelName, dir: string, name: string, data: Buffer | string): Promise<string> {
  const target = path.join(dir, name);
  const temp = path.join(dir, `.${name}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(temp, data);
    await rename(temp, target);
    return target;
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code;
    // A full disk or a permission may be fixed by an operator: worth retrying.
    throw new ChannelError(channel, `Could not write the outbox file ${name}: ${code ?? String(error)}`, true, code);
  }
}
