import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

/** How long an operator session lasts after login. */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;
export const SESSION_COOKIE = "ops_session";

/** The shortest operator token accepted: the session key is derived from it (OPERATOR_TOKEN has the same minimum). */
const OPERATOR_TOKEN_MIN_LENGTH = 16;

/**
 * The operator token: OPERATOR_TOKEN, or one generated on first start and kept under DATA_DIR
 * (mode 0600). `created` is true only on the start that generated it (the caller prints it once).
 * The file appears complete or not at all (written aside, then linked into place), so a process
 * starting beside the first never reads it half written. A file holding no usable token (emptied
 * by hand, say) stops the start: a blank token would make the session key public.
 */
export async function operatorToken(value: string | undefined, dataDir: string): Promise<{ token: string; created: boolean }> {
  if (value) return { token: checkedToken(value, "OPERATOR_TOKEN"), created: false };
  const target = path.join(dataDir, "operator-token");
  const existing = await readToken(target);
  if (existing !== undefined) return { token: checkedToken(existing, target), created: false };
  await fs.mkdir(dataDir, { recursive: true });
  const fresh = randomBytes(24).toString("base64url");
  if (await placeToken(target, `${fresh}\n`)) return { token: fresh, created: true };
  // Another process placed its token first: that one is the token.
  return { token: checkedToken((await readToken(target)) ?? "", target), created: false };
}

/** Puts the token file in place unless one is there already: true when this call placed it. */
async function placeToken(target: string, content: string): Promise<boolean> {
  const aside = `${target}.${randomBytes(6).toString("hex")}.tmp`;
  await fs.writeFile(aside, content, { mode: 0o600, flag: "wx" });
  try {
    await fs.link(aside, target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    // A filesystem without hard links (FAT, some network mounts): an exclusive create instead,
    // whose few bytes a reader may find still unwritten (readToken waits for them).
    try {
      await fs.writeFile(target, content, { mode: 0o600, flag: "wx" });
      return true;
    } catch (fallback) {
      if ((fallback as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw fallback;
    }
  } finally {
    await fs.rm(aside, { force: true });
  }
}

/** The token file's content, trimmed; undefined when there is none. One still being written is given a second to fill. */
async function readToken(file: string): Promise<string | undefined> {
  for (let tries = 0; ; tries++) {
    let content: string;
    try {
      content = (await fs.readFile(file, "utf8")).trim();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    if (content.length >= OPERATOR_TOKEN_MIN_LENGTH || tries >= 10) return content;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function checkedToken(token: string, source: string): string {
  if (token.length < OPERATOR_TOKEN_MIN_LENGTH) {
    throw new Error(`${source} holds no usable operator token (at least ${OPERATOR_TOKEN_MIN_LENGTH} characters): set OPERATOR_TOKEN, or delete the file to have a new token generated`);
  }
  return token;
}

/** Equal strings, compared in constant time (over their SHA-256, so lengths leak nothing either). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash("sha256").update(a).digest();
  const hb = createHash("sha256").update(b).digest();
  return timingSafeEqual(ha, hb);
}

export interface Session {
  id: string;
  expires: number;
}

/** Signs sessions and derives their CSRF tokens with a key derived from the operator token. */
export class SessionSigner {
  private readonly key: Buffer;

  constructor(operatorToken: string) {
    if (operatorToken.length < OPERATOR_TOKEN_MIN_LENGTH) throw new Error("the operator token is too short to sign sessions with");
    this.key = createHash("sha256").update(`ops-session\0${operatorToken}`).digest();
  }

  private mac(value: string): string {
    return createHmac("sha256", this.key).update(value).digest("base64url");
  }

  issue(now = Date.now()): { cookie: string; session: Session } {
    const session = { id: randomBytes(18).toString("base64url"), expires: now + SESSION_TTL_SECONDS * 1000 };
    const body = `${session.expires}.${session.id}`;
    return { cookie: `${body}.${this.mac(body)}`, session };
  }

  verify(cookie: string | undefined, now = Date.now()): Session | undefined {
    if (!cookie) return undefined;
    const parts = cookie.split(".");
    if (parts.length !== 3) return undefined;
    const [expires, id, mac] = parts as [string, string, string];
    if (!safeEqual(mac, this.mac(`${expires}.${id}`))) return undefined;
    const at = Number(expires);
    if (!Number.isSafeInteger(at) || at <= now) return undefined;
    return { id, expires: at };
  }

  csrf(session: Session): string {
    return this.mac(`csrf.${session.id}`);
  }
}

/** Cookies of a request's Cookie header. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!cookies.has(name)) cookies.set(name, part.slice(eq + 1).trim());
  }
  return cookies;
}
