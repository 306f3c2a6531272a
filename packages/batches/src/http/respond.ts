/** Headers of every JSON answer. */
const JSON_HEADERS = { "content-type": "application/json" };

/**
 * A JSON response.
 *
 * @example
 * return json(200, { object: "list", data: [] });
 */
export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: JSON_HEADERS });
}

/** What an OpenAI-style error names besides its message. */
export interface ErrorFields {
  readonly type?: string;
  readonly code?: string | null;
  readonly param?: string | null;
}

/**
 * An error answer in OpenAI's shape, `{ error: { message, type, code, param } }`.
 *
 * @example
 * return openaiError(404, "No batch found with id 'batch_x'.", { code: "not_found" });
 */
export function openaiError(status: number, message: string, fields: ErrorFields = {}): Response {
  const type = fields.type ?? (status >= 500 ? "server_error" : "invalid_request_error");
  return json(status, { error: { message, type, code: fields.code ?? null, param: fields.param ?? null } });
}
