import { STATUS_CODES, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";

/** The answer for each error node's HTTP parser raises before a route could answer. */
function answerFor(code: string | undefined): { status: number; message: string } {
  switch (code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, message: "Request timed out" };
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, message: "Request headers are too large" };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { status: 413, message: "Request chunk extensions are too large" };
    default:
      return { status: 400, message: "Request is not valid HTTP" };
  }
}

/**
 * fastify's clientErrorHandler: a request node gave up on (not received within requestTimeout,
 * headers over maxHeaderSize, bytes that are not HTTP) is answered in the v2 envelope, and the
 * connection is closed, since its stream can no longer be parsed. fastify's own handler answers
 * these in its default error shape.
 */
export function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has no one left to answer.
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const { status, message } = answerFor(error.code);
  // Only the code: the error's rawPacket holds the request's bytes, API keys included.
  this.log.debug({ code: error.code, status }, "client error");
  // As node does: an answer already under way on this socket cannot be replaced, only cut short.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify({ errors: [message] });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
