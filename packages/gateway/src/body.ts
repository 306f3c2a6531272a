import { openaiError } from "./respond.js";

/**
 * The request's body, at most `limit` bytes: a declared length above it is refused before anything is
 * read, and the bytes are counted as they arrive (413 either way); no body at all is a 400.
 *
 * @example
 * const body = await readBounded(request, 16 * 1024 * 1024);
 * if (body instanceof Response) return body;
 */
export async function readBounded(
  request: Request,
  limit: number,
): Promise<Uint8Array<ArrayBuffer> | Response> {
  const tooLarge = () =>
    openaiError(413, `The request body is larger than ${limit} bytes.`, "request_too_large");
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) {
    await request.body?.cancel().catch(() => undefined);
    return tooLarge();
  }
  if (request.body === null) return openaiError(400, "The request has no body.", "missing_body");
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return tooLarge();
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const whole = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}

const decoder = new TextDecoder();

/** The JSON object of a body, or a 400 saying why not (never quoting the body). */
export function jsonObjectOf(bytes: Uint8Array): Record<string, unknown> | Response {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(bytes));
  } catch {
    return openaiError(400, "The body is not valid JSON.", "invalid_json");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return openaiError(400, "The body must be a JSON object.", "invalid_json");
  }
  return parsed as Record<string, unknown>;
}
