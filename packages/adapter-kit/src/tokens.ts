import type { HeaderReader } from "@llm-scheduler/core/kit";

/** Characters per token in the estimate (a common rule of thumb for English text and code). */
const CHARS_PER_TOKEN = 4;
/** The largest estimate (the scheduler's bound for `tokens`). */
const MAX_TOKENS = 1_000_000_000_000;

/** Characters of text in a prompt field: a string, an array of strings or of content parts with `text`. */
function textLength(value: unknown, depth = 0): number {
  if (typeof value === "string") return value.length;
  if (depth > 4 || value === null || typeof value !== "object") return 0;
  if (Array.isArray(value)) {
    let sum = 0;
    for (const item of value) sum += textLength(item, depth + 1);
    return sum;
  }
  const part = value as { text?: unknown; content?: unknown };
  return textLength(part.text, depth + 1) + textLength(part.content, depth + 1);
}

/** The output bound a body asks for: `max_tokens`, `max_completion_tokens` or `max_output_tokens`. */
function outputBound(body: Record<string, unknown>): number | undefined {
  for (const key of ["max_completion_tokens", "max_tokens", "max_output_tokens"]) {
    const value = body[key];
    if (typeof value === "number" && Number.isInteger(value) && value >= 0) return value;
  }
  return undefined;
}

/**
 * Estimates the tokens of an OpenAI-style request body (chat `messages`, completion `prompt` or
 * responses `input`): prompt characters / 4, plus the output bound the body asks for (`max_tokens`,
 * `max_completion_tokens`, `max_output_tokens`) or `defaultMaxTokens` when it asks for none. 0 for a
 * body that is not an object.
 *
 * @example
 * estimateTokens({ messages: [{ role: "user", content: "x".repeat(400) }], max_tokens: 50 }, 1_024); // 150
 */
export function estimateTokens(body: unknown, defaultMaxTokens: number): number {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return 0;
  const object = body as Record<string, unknown>;
  const prompt = textLength(object.messages) + textLength(object.prompt) + textLength(object.input);
  const estimate = Math.ceil(prompt / CHARS_PER_TOKEN) + (outputBound(object) ?? defaultMaxTokens);
  return Math.min(MAX_TOKENS, estimate);
}

/**
 * Estimates the tokens of a request whose body the adapter could not read (no JSON parser ran, or the
 * body streams through to the upstream), from what its headers declare: `content-length` bytes / 4 (the
 * whole body counted as prompt, an upper bound for text) plus `defaultMaxTokens`, the output the request
 * may ask for. A body of unknown length (`transfer-encoding` without `content-length`) is charged
 * `defaultMaxTokens` alone; a request without a body (neither header, or a length of 0) 0. The answer's
 * `usage` corrects the charge afterwards, as for any estimate.
 *
 * @example
 * estimateTokensFromLength("4000", undefined, 1_024); // 2_024
 */
export function estimateTokensFromLength(
  contentLength: string | null | undefined,
  transferEncoding: string | null | undefined,
  defaultMaxTokens: number,
): number {
  if (contentLength === null || contentLength === undefined) {
    return transferEncoding === null || transferEncoding === undefined ? 0 : defaultMaxTokens;
  }
  if (!/^\s*\d+\s*$/.test(contentLength)) return defaultMaxTokens; // Node refuses these before us
  const bytes = Number(contentLength);
  if (bytes === 0) return 0;
  return Math.min(MAX_TOKENS, Math.ceil(bytes / CHARS_PER_TOKEN) + defaultMaxTokens);
}

/**
 * The estimate for one request: from its parsed JSON body when there is one, otherwise from the length
 * its headers declare, so that a body streamed through unread is charged up front all the same.
 *
 * @example
 * estimateRequestTokens(undefined, nodeHeaderReader(req.headers), 1_024); // from `content-length`
 */
export function estimateRequestTokens(body: unknown, header: HeaderReader, defaultMaxTokens: number): number {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    return estimateTokensFromLength(header("content-length"), header("transfer-encoding"), defaultMaxTokens);
  return estimateTokens(body, defaultMaxTokens);
}
