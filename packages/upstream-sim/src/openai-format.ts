import type { Endpoint } from "./request-parse.js";

/** Why generation stopped: `length` when `max_tokens` cut it, `stop` otherwise. */
export type FinishReason = "stop" | "length";

/** Token counts, in OpenAI's field names. */
export interface Usage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
}

/** What every object of one response shares. */
export interface ResponseIdentity {
  readonly endpoint: Endpoint;
  readonly id: string;
  /** Unix seconds. */
  readonly created: number;
  readonly model: string;
}

/**
 * Builds {@link Usage} from prompt and completion token counts.
 *
 * @example
 * usage(3, 5); // { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 }
 */
export function usage(promptTokens: number, completionTokens: number): Usage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}

function header(identity: ResponseIdentity, object: string): Record<string, unknown> {
  return {
    id: identity.id,
    object,
    created: identity.created,
    model: identity.model,
    system_fingerprint: null,
  };
}

/**
 * A whole non-streaming response: a `chat.completion` or a `text_completion` object.
 *
 * @example
 * completionObject(identity, "Hello there", "stop", usage(3, 2));
 */
export function completionObject(
  identity: ResponseIdentity,
  text: string,
  finishReason: FinishReason,
  counts: Usage,
): Record<string, unknown> {
  if (identity.endpoint === "chat") {
    const message = { role: "assistant", content: text, refusal: null };
    const choice = { index: 0, message, logprobs: null, finish_reason: finishReason };
    return { ...header(identity, "chat.completion"), choices: [choice], usage: counts };
  }
  const choice = { index: 0, text, logprobs: null, finish_reason: finishReason };
  return { ...header(identity, "text_completion"), choices: [choice], usage: counts };
}

/** What one streaming chunk carries. */
export type ChunkPart =
  | { readonly kind: "role" }
  | { readonly kind: "token"; readonly text: string }
  | { readonly kind: "finish"; readonly finishReason: FinishReason }
  | { readonly kind: "usage"; readonly usage: Usage };

function chatChoice(part: Exclude<ChunkPart, { kind: "usage" }>): Record<string, unknown> {
  const delta =
    part.kind === "role"
      ? { role: "assistant", content: "", refusal: null }
      : part.kind === "token"
        ? { content: part.text }
        : {};
  const finishReason = part.kind === "finish" ? part.finishReason : null;
  return { index: 0, delta, logprobs: null, finish_reason: finishReason };
}

function textChoice(part: Exclude<ChunkPart, { kind: "usage" }>): Record<string, unknown> {
  const text = part.kind === "token" ? part.text : "";
  const finishReason = part.kind === "finish" ? part.finishReason : null;
  return { index: 0, text, logprobs: null, finish_reason: finishReason };
}

/**
 * One streaming chunk: a `chat.completion.chunk` (the first carries the role, the last before usage
 * the `finish_reason`) or a `text_completion` chunk. With `includeUsage`, every chunk has
 * `usage: null` and the usage chunk has empty `choices`, as OpenAI sends them.
 *
 * @example
 * chunkObject(identity, { kind: "token", text: " word" }, false);
 */
export function chunkObject(
  identity: ResponseIdentity,
  part: ChunkPart,
  includeUsage: boolean,
): Record<string, unknown> {
  const object = identity.endpoint === "chat" ? "chat.completion.chunk" : "text_completion";
  if (part.kind === "usage") return { ...header(identity, object), choices: [], usage: part.usage };
  const choice = identity.endpoint === "chat" ? chatChoice(part) : textChoice(part);
  return { ...header(identity, object), choices: [choice], ...(includeUsage ? { usage: null } : {}) };
}

/**
 * Frames a value as one server-sent event: `data: <json>\n\n`.
 *
 * @example
 * sseData({ a: 1 }); // 'data: {"a":1}\n\n'
 */
export function sseData(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

/** The event that ends an OpenAI stream. */
export const sseDone = "data: [DONE]\n\n";
