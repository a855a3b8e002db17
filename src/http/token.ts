import type { FastifyRequest } from "fastify";

/** The API key from `X-Auth-Token`, or from `Authorization: Bearer` (what MCP clients send). */
export function requestToken(request: FastifyRequest): string | undefined {
  const header = request.headers["x-auth-token"];
  const value = Array.isArray(header) ? header[0] : header;
  if (value?.trim()) return value.trim();
  const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? "")?.[1];
  return bearer?.trim() || undefined;
}
