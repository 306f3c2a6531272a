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
}

type Json = Record<string, unknown>;

function invalid(param: string, message: string, code = "invalid_value"): HttpError {
  return new HttpError(400, message, { code, param });
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function optionalPositiveInteger(body: Json, param: string): number | undefined {
  const value = body[param];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw invalid(param, `\`${param}\` must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return value;
}

function optionalBoolean(body: Json, param: string): boolean {
  const value = body[param];
  if (value === undefined || value === null) return false;
  if (typeof value !== "boolean") throw invalid(param, `\`${param}\` must be a boolean`);
  return value;
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (isObject(part) && typeof part.text === "string" ? part.text : "")).join("");
}

function chatPromptTokens(body: Json): number {
  const messages = body.messages;
  if (messages === undefined) {
    throw invalid("messages", "Missing required parameter: 'messages'.", "missing_required_parameter");
  }
  if (!Array.isArray(messages) || messages.length === 0) {
    throw invalid("messages", "`messages` must be a non-empty array");
  }
  let tokens = 0;
  for (const [index, message] of messages.entries()) {
    if (!isObject(message) || typeof message.role !== "string") {
      throw invalid(`messages[${index}]`, `\`messages[${index}]\` must be an object with a string \`role\``);
    }
    tokens += estimateTokens(contentText(message.content));
  }
  return tokens;
}

function promptPartTokens(part: unknown): number {
  if (typeof part === "string") return estimateTokens(part);
  if (typeof part === "number") return 1;
  if (Array.isArray(part) && part.every((token) => typeof token === "number")) return part.length;
  throw invalid("prompt", "`prompt` must be a string, an array of strings or an array of token ids");
}

function completionPromptTokens(body: Json): number {
  const prompt = body.prompt;
  if (prompt === undefined || prompt === null) {
    throw invalid("prompt", "Missing required parameter: 'prompt'.", "missing_required_parameter");
  }
  if (!Array.isArray(prompt)) return promptPartTokens(prompt);
  if (prompt.length === 0) throw invalid("prompt", "`prompt` must not be empty");
  return prompt.reduce<number>((sum, part) => sum + promptPartTokens(part), 0);
}

/**
 * Parses and validates the JSON body of a completion request; throws a 400 {@link HttpError} with an
 * OpenAI-style message when it is not valid.
 *
 * @example
 * parseGenerationRequest("chat", '{"model":"m","messages":[{"role":"user","content":"Hello, world"}]}');
 * // { endpoint: "chat", model: "m", stream: false, includeUsage: false, maxTokens: undefined, promptTokens: 3, seed: undefined }
 */
export function parseGenerationRequest(endpoint: Endpoint, text: string): GenerationRequest {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (cause) {
    throw new HttpError(400, "The request body is not valid JSON", { code: "invalid_json", cause });
  }
  if (!isObject(body)) throw invalid("body", "The request body must be a JSON object", "invalid_json");
  const model = body.model ?? undefined;
  if (model !== undefined && typeof model !== "string") throw invalid("model", "`model` must be a string");
  const seed = body.seed;
  if (seed !== undefined && seed !== null && (typeof seed !== "number" || !Number.isInteger(seed))) {
    throw invalid("seed", "`seed` must be an integer");
  }
  const streamOptions = body.stream_options;
  return {
    endpoint,
    model: typeof model === "string" ? model : undefined,
    stream: optionalBoolean(body, "stream"),
    includeUsage: isObject(streamOptions) && streamOptions.include_usage === true,
    maxTokens:
      optionalPositiveInteger(body, "max_completion_tokens") ?? optionalPositiveInteger(body, "max_tokens"),
    promptTokens: endpoint === "chat" ? chatPromptTokens(body) : completionPromptTokens(body),
    seed: typeof seed === "number" ? seed : undefined,
  };
}
