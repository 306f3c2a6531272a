/** Headers every answer of the dashboard carries: no caching, no sniffing, no framing by other sites. */
export const SAFE_HEADERS: Readonly<Record<string, string>> = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

/**
 * A JSON response with the dashboard's safe headers.
 *
 * @example
 * return json(200, { ok: true });
 */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...SAFE_HEADERS, "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/** Fields of an OpenAI-style error body. */
export interface OpenaiErrorFields {
  readonly message: string;
  readonly type: string;
  readonly code: string;
  readonly param?: string | null;
}

/**
 * An OpenAI-style JSON error: `{ error: { message, type, code, param } }`.
 *
 * @example
 * return openaiError(403, { message: "The dashboard is read-only", type: "permission_error", code: "read_only" });
 */
export function openaiError(
  status: number,
  fields: OpenaiErrorFields,
  headers: Record<string, string> = {},
): Response {
  const { message, type, code, param = null } = fields;
  return json(status, { error: { message, type, code, param } }, headers);
}

/**
 * 400 with `invalid_request_error`, naming the offending field in `param`.
 *
 * @example
 * return badRequest("`maxConcurrency` must be an integer from 1 to 100000", "maxConcurrency");
 */
export function badRequest(message: string, param: string | null, code = "invalid_value"): Response {
  return openaiError(400, { message, type: "invalid_request_error", code, param });
}
