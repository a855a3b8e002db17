/**
 * Reading a verified webhook body. A signature proves who sent the bytes, not that PostgreSQL can
 * store them: jsonb refuses `\u0000` and unpaired surrogates, and a lenient UTF-8 decoder would
 * silently replace bad bytes. Such a body is refused with a 400 here instead of failing (500) at
 * the insert.
 */

type ParsedBody = { ok: true; payload: unknown } | { ok: false; error: string };

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

function storable(text: string): boolean {
  return !text.includes("\u0000") && text.isWellFormed();
}

class UnstorableText extends Error {}

export function parseWebhookBody(body: Buffer): ParsedBody {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return { ok: false, error: "Request body is not valid UTF-8" };
  }
  try {
    // The reviver sees every key and every string after JSON escapes are decoded.
    const payload: unknown = JSON.parse(text, (key, value: unknown) => {
      if (!storable(key) || (typeof value === "string" && !storable(value))) throw new UnstorableText();
      return value;
    });
    return { ok: true, payload };
  } catch (error) {
    if (error instanceof UnstorableText) return { ok: false, error: "Request body contains a NUL character or an unpaired surrogate" };
    return { ok: false, error: "Request body is not valid JSON" };
  }
}

/**
 * The shop a payload names, when it names one (`shop_domain` in the platform's shop-level and
 * privacy webhooks, `myshopify_domain` in shop payloads); order, product and inventory payloads
 * name none.
 */
export function payloadShopDomain(payload: unknown): string | undefined {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return undefined;
  const record = payload as Record<string, unknown>;
  for (const field of ["shop_domain", "myshopify_domain"]) {
    const value = record[field];
    if (typeof value === "string") return value;
  }
  return undefined;
}
