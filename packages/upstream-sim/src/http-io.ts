import type { IncomingMessage, ServerResponse } from "node:http";
import { HttpError } from "./errors.js";

/** Largest request body accepted, in bytes. */
export const maxBodyBytes = 8 * 1024 * 1024;

/**
 * Sends a JSON response unless the response is already closed; a response whose headers are already
 * out (a stream) is cut instead.
 *
 * @example
 * sendJson(res, 200, { status: "ok" });
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (res.destroyed || res.writableEnded) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * Sends an {@link HttpError} as an OpenAI-style error body.
 *
 * @example
 * sendError(res, new HttpError(404, "Not found", { code: "not_found" }));
 */
export function sendError(res: ServerResponse, error: HttpError): void {
  sendJson(res, error.status, error.toBody(), error.headers);
}

/**
 * Reads the whole request body as UTF-8 text; rejects with a 413 {@link HttpError} past
 * {@link maxBodyBytes}.
 *
 * @example
 * const text = await readBody(req);
 */
export function readBody(req: IncomingMessage, limit = maxBodyBytes): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else
        reject(new HttpError(413, `Request body is larger than ${limit} bytes`, { code: "body_too_large" }));
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
    req.on("close", () => {
      if (!req.complete) reject(new Error("The client went away while sending the body"));
    });
  });
}
