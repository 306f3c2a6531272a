/** OpenAI's error types by status, as its API answers them. */
const TYPE_OF: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  403: "permission_error",
  404: "invalid_request_error",
  405: "invalid_request_error",
  411: "invalid_request_error",
  413: "invalid_request_error",
  429: "rate_limit_error",
  500: "server_error",
  502: "server_error",
  503: "server_error",
  504: "server_error",
};

/**
 * An OpenAI-style JSON error: `{ error: { message, type, param, code } }` with the status's type.
 * Messages are the gateway's own words: never a credential, a prompt or an upstream's body.
 *
 * @example
 * return openaiError(404, "The model `x` does not exist.", "model_not_found", "model");
 */
export function openaiError(
  status: number,
  message: string,
  code: string,
  param: string | null = null,
  headers?: Readonly<Record<string, string>>,
): Response {
  const body = JSON.stringify({ error: { message, type: TYPE_OF[status] ?? "server_error", param, code } });
  return new Response(body, { status, headers: { "content-type": "application/json", ...headers } });
}
