/**
 * What went wrong talking to the store platform; callers branch on `kind`, people read `message`.
 * `auth`: the token was refused (401) or lacks a scope (403); `shop_unavailable`: the shop is
 * frozen for an unpaid bill (402) or locked (423); `not_found`: no Admin API at the URL (404: the
 * API version or the shop is wrong). None of these is retried: only the merchant can change them.
 */
export type PlatformErrorKind = "throttled" | "http" | "network" | "timeout" | "graphql" | "user_errors" | "auth" | "shop_unavailable" | "not_found";

interface PlatformUserError {
  field?: string[];
  message: string;
}

interface PlatformErrorDetails {
  kind: PlatformErrorKind;
  /** The HTTP status of the last answer, when there was one. */
  status?: number;
  /** How many HTTP attempts were made before giving up (0 for errors found in a payload). */
  attempts: number;
  userErrors?: PlatformUserError[];
  cause?: unknown;
}

export class PlatformError extends Error {
  readonly kind: PlatformErrorKind;
  readonly status: number | undefined;
  readonly attempts: number;
  readonly userErrors: PlatformUserError[] | undefined;

  constructor(message: string, details: PlatformErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "PlatformError";
    this.kind = details.kind;
    this.status = details.status;
    this.attempts = details.attempts;
    this.userErrors = details.userErrors;
  }
}

/** The shape mutations answer next to their payload (`field` and `code` may be null). */
interface UserErrorPayload {
  userErrors: { field?: string[] | null; message: string; code?: string | null }[];
}

function describe(error: PlatformUserError): string {
  return error.field && error.field.length > 0 ? `${error.message} (${error.field.join(".")})` : error.message;
}

/**
 * Mutations report business failures as `userErrors` in an otherwise successful answer; this
 * turns them into a thrown error so a caller cannot forget to look, e.g.
 * "sellingPlanGroupCreate: variant gid://shopify/ProductVariant/9 does not exist (productVariantIds.0)".
 */
export function expectNoUserErrors<P extends UserErrorPayload>(payload: P, operationName: string): P {
  if (payload.userErrors.length === 0) return payload;
  const userErrors: PlatformUserError[] = payload.userErrors.map((e) =>
    e.field ? { field: e.field, message: e.message } : { message: e.message },
  );
  return failWithUserErrors(operationName, userErrors);
}

function failWithUserErrors(operationName: string, userErrors: PlatformUserError[]): never {
  throw new PlatformError(`${operationName}: ${userErrors.map(describe).join("; ")}`, {
    kind: "user_errors",
    attempts: 0,
    userErrors,
  });
}
