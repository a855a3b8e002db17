import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

/**
 * A secret from the environment, or else one generated once (32 random bytes, base64) and kept
 * under DATA_DIR with mode 0600, so the embedded default works with no setup and survives restarts.
 */
export async function secretFromEnvOrFile(value: string | undefined, dataDir: string, file: string): Promise<string> {
  if (value) return value;
  const target = path.join(dataDir, file);
  const existing = await fs.readFile(target, "utf8").catch(() => undefined);
  if (existing?.trim()) return existing.trim();
  await fs.mkdir(dataDir, { recursive: true });
  const fresh = randomBytes(32).toString("base64");
  try {
    await fs.writeFile(target, `${fresh}\n`, { mode: 0o600, flag: "wx" });
    return fresh;
  } catch {
    // Another process wrote it first: use theirs.
    return (await fs.readFile(target, "utf8")).trim();
  }
}
