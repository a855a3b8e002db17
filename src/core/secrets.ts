import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = 1;

/**
 * Encrypts integration secrets at rest with AES-256-GCM. Stored form: version byte, 12-byte IV,
 * 16-byte tag, ciphertext. The key never touches the database.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error("secrets key must be 32 bytes");
    this.key = key;
  }

  seal(plain: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
  }

  open(sealed: Buffer): string {
    if (sealed[0] !== VERSION) throw new Error("unknown secret format");
    const decipher = createDecipheriv("aes-256-gcm", this.key, sealed.subarray(1, 13));
    decipher.setAuthTag(sealed.subarray(13, 29));
    return Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]).toString("utf8");
  }
}
