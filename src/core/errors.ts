import { DATABASE_RETRY_AFTER_SECONDS } from "./database-unavailable.ts";

type ErrorCode =
  | "BAD_REQUEST"
  | "UNAUTHORIZED"
  | "NOT_FOUND"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "UNPROCESSABLE"
  | "RATE_LIMITED"
  | "INTERNAL"
  | "UNAVAILABLE";

/** The one table from error code to HTTP status; transports other than HTTP ignore it. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
};

/**
 * One validation problem: the dotted path of the field (empty for the body as a whole) and what is
 * wrong with it, without the field name (`{ path: "name", message: "must not be blank" }`).
 * Transports that name fields their own way (v1, MCP) read these instead of parsing messages.
 */
export interface Issue {
  path: string;
  message: string;
}

export const fieldIssue = (path: string, message: string): Issue => ({ path, message });

/** The v2 message of an issue: `<field> <message>`, `body` standing for an empty path. */
export const issueText = (issue: Issue): string => `${issue.path === "" ? "body" : issue.path} ${issue.message}`;

/** An expected failure of an action: it reaches the client as `{ errors: messages }`. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly messages: string[];
  /** The fields of a 422, one per message and in the same order; empty for every other error. */
  readonly issues: Issue[];
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, messages: string | string[], headers: Record<string, string> = {}, issues: Issue[] = []) {
    const list = Array.isArray(messages) ? messages : [messages];
    super(list.join("; "));
    this.name = "ApiError";
    this.code = code;
    this.messages = list;
    this.issues = issues;
    this.headers = headers;
  }
}

/** A 422 naming its fields; the messages are built from the issues. */
export const unprocessable = (issues: Issue[]): ApiError => new ApiError("UNPROCESSABLE", issues.map(issueText), {}, issues);

/** Shorthand for a 422 about one field. */
export const invalidField = (path: string, message: string): ApiError => unprocessable([fieldIssue(path, message)]);

export const MESSAGES = {
  unauthorized: "X-Auth-Token is missing or invalid",
  invalidJson: "Request body is not valid JSON",
  rateLimited: "Rate limit exceeded",
  /** `instead`: what to ask for instead (Registry.insteadOf), after a colon. */
  noAction: (method: string, path: string, instead?: string) => `No v2 action registered for ${method} ${path}${instead ? `: ${instead}` : ""}`,
  notFound: (resource: string, id: string) => `${resource} not found: ${id}`,
  bodyTooLarge: (limit: number) => `Request body is larger than ${limit} bytes`,
  internal: (requestId: string) => `Internal server error (request id ${requestId})`,
  databaseUnavailable: (retryAfterSeconds: number) => `The service is temporarily unavailable (its database cannot be reached); try again in ${retryAfterSeconds} seconds`,
};

/** The database is away (isDatabaseUnavailable): a 503 with Retry-After, never a 500. */
export const databaseUnavailable = (): ApiError =>
  new ApiError("UNAVAILABLE", MESSAGES.databaseUnavailable(DATABASE_RETRY_AFTER_SECONDS), { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) });

export const notFound = (resource: string, id: string): ApiError =>
  new ApiError("NOT_FOUND", MESSAGES.notFound(resource, id));

export const conflict = (reason: string): ApiError => new ApiError("CONFLICT", reason);
