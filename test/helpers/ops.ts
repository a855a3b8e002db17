import { expect } from "vitest";

/** An answer of the ops console, read as text. */
export interface OpsAnswer {
  status: number;
  text: string;
  headers: Headers;
}

export interface OpsRequest {
  method?: string;
  cookie?: string;
  /** Sent form-encoded; pairs keep repeated fields (ids of a bulk retry). */
  form?: Record<string, string> | [string, string][];
  headers?: Record<string, string>;
}

/** A request to the console at `origin`, redirects not followed. */
export async function opsRequest(origin: string, path: string, init: OpsRequest = {}): Promise<OpsAnswer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.cookie) headers.cookie = init.cookie;
  let body: string | undefined;
  if (init.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(init.form).toString();
  }
  const response = await fetch(`${origin}${path}`, { method: init.method ?? "GET", headers, body, redirect: "manual" });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** Logs in with the operator token; the session cookie and the CSRF token of `page`. */
export async function opsLogin(origin: string, token: string, page = "/ops/jobs"): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const answer = await opsRequest(origin, "/ops/login", { method: "POST", form: { token } });
  expect(answer.status).toBe(303);
  const setCookie = answer.headers.get("set-cookie") ?? "";
  const cookie = setCookie.split(";")[0] ?? "";
  const csrf = /name="csrf" value="([^"]+)"/.exec((await opsRequest(origin, page, { cookie })).text)?.[1];
  if (!csrf) throw new Error("no CSRF token on the page");
  return { cookie, csrf, setCookie };
}
