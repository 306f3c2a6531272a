import { HttpError } from "./errors.js";
import { estimateTokens } from "./tokens.js";

/** Which OpenAI endpoint a request came to. */
export type Endpoint = "chat" | "completion";

/** What the simulator needs from a completion request, validated. */
export interface GenerationRequest {
  readonly endpoint: Endpoint;
  /** The `model` field, or `undefined` when the request names none. */
  readonly model: string | undefined;
  readonly stream: boolean;
  /** `stream_options.include_usage`: send a usage chunk before `[DONE]`. */
  readonly includeUsage: boolean;
  /** `max_completion_tokens`, else `max_tokens`, else `undefined`. */
  readonly maxTokens: number | undefined;
  /** Estimated prompt tokens (characters / 4). */
  readonly promptTokens: number;
  /** The `seed` field, which picks the filler words. */
  readonly seed: number | undefined;
  /** The prompt's text (chat: every message's text, one per line), which fault rules match on. */
  readonly promptText: string;
}

/** A prompt's size and text. */
interface Prompt {
  readonly tokens: number;
  readonly text: string;
}

type Json = Record<string, unknown>;

/** The most tokens a request may ask for (far beyond any model's context, as real servers bound it). */
export const MAX_TOKENS = 1_000_000;

function invalidParam(param: string, message: string, code = "invalid_value"): HttpError {
  return new HttpError(400, message, { code, param });
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function optionalPositiveInteger(body: Json, param: string): number | undefined {
  const value = body[param];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_TOKENS) {
    throw invalidParam(
      param,
      `\`${param}\` must be an integer from 1 to ${MAX_TOKENS}, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function optionalBoolean(body: Json, param: string): boolean {
  const value = body[param];
  if (value === undefined || value === null) return false;
  if (typeof value !== "boolean") throw invalidParam(param, `\`${param}\` must be a boolean`);
  return value;
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (isObject(part) && typeof part.text === "string" ? part.text : "")).join("");
}

function chatPrompt(body: Json): Prompt {
  const messages = body.messages;
  if (messages === undefined) {
    throw invalidParam("messages", "Missing required parameter: 'messages'.", "missing_required_parameter");
  }
  if (!Array.isArray(messages) || messages.length === 0) {
    throw invalidParam("messages", "`messages` must be a non-empty array");
  }
  let tokens = 0;
  const texts: string[] = [];
  for (const [index, message] of messages.entries()) {
    if (!isObject(message) || typeof message.role !== "string") {
      throw invalidParam(
        `messages[${index}]`,
        `\`messages[${index}]\` must be an object with a string \`role\``,
      );
    }
    const text = contentText(message.content);
    tokens += estimateTokens(text);
    texts.push(text);
  }
  return { tokens, text: texts.join("\n") };
}

function promptPart(part: unknown): Prompt {
  if (typeof part === "string") return { tokens: estimateTokens(part), text: part };
  if (typeof part === "number") return { tokens: 1, text: String(part) };
  if (Array.isArray(part) && part.every((token) => typeof token === "number")) {
    return { tokens: part.length, text: part.join(" ") };
  }
  throw invalidParam("prompt", "`prompt` must be a string, an array of strings or an array of token ids");
}

function completionPrompt(body: Json): Prompt {
  const prompt = body.prompt;
  if (prompt === undefined || prompt === null) {
    throw invalidParam("prompt", "Missing required parameter: 'prompt'.", "missing_required_parameter");
  }
  if (!Array.isArray(prompt)) return promptPart(prompt);
  if (prompt.length === 0) throw invalidParam("prompt", "`prompt` must not be empty");
  const parts = prompt.every((part) => typeof part === "number") ? [prompt] : prompt;
  const read = parts.map(promptPart);
  return {
    tokens: read.reduce((sum, part) => sum + part.tokens, 0),
    text: read.map((part) => part.text).join("\n"),
  };
}

/**
 * Parses and validates the JSON body of a completion request; throws a 400 {@link HttpError} with an
 * OpenAI-style message when it is not valid.
 *
 * @example
 * parseGenerationRequest("chat", '{"model":"m","messages":[{"role":"user","content":"Hello, world"}]}');
 * // { endpoint: "chat", model: "m", stream: false, includeUsage: false, maxTokens: undefined, promptTokens: 3,
 * //   seed: undefined, promptText: "Hello, world" }
 */
export function parseGenerationRequest(endpoint: Endpoint, text: string): GenerationRequest {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (cause) {
    throw new HttpError(400, "The request body is not valid JSON", { code: "invalid_json", cause });
  }
  if (!isObject(body)) throw invalidParam("body", "The request body must be a JSON object", "invalid_json");
  const model = body.model ?? undefined;
  if (model !== undefined && typeof model !== "string")
    throw invalidParam("model", "`model` must be a string");
  const seed = body.seed;
  if (seed !== undefined && seed !== null && (typeof seed !== "number" || !Number.isInteger(seed))) {
    throw invalidParam("seed", "`seed` must be an integer");
  }
  const streamOptions = body.stream_options;
  const prompt = endpoint === "chat" ? chatPrompt(body) : completionPrompt(body);
  return {
    endpoint,
    model: typeof model === "string" ? model : undefined,
    stream: optionalBoolean(body, "stream"),
    includeUsage: isObject(streamOptions) && streamOptions.include_usage === true,
    maxTokens:
      optionalPositiveInteger(body, "max_completion_tokens") ?? optionalPositiveInteger(body, "max_tokens"),
    promptTokens: prompt.tokens,
    seed: typeof seed === "number" ? seed : undefined,
    promptText: prompt.text,
  };
}
