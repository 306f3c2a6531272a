import type { TokenUsage } from "@llm-scheduler/core";

/** How much of the end of a response is kept to find its `usage` (a usage object is far smaller). */
const TAIL_CHARS = 16_384;
const KEY = '"usage"';

/** True for the content types whose body may carry a `usage` object: JSON and server-sent events. */
export function carriesUsage(contentType: string | null | undefined): boolean {
  if (typeof contentType !== "string") return false;
  return contentType.includes("json") || contentType.includes("text/event-stream");
}

/** A non-negative integer field of a usage object, by any of its names. */
function count(object: Record<string, unknown>, names: readonly string[]): number | undefined {
  for (const name of names) {
    const value = object[name];
    if (typeof value === "number" && Number.isInteger(value) && value >= 0) return value;
  }
  return undefined;
}

/**
 * Finds the token usage an upstream reported at the end of its answer, in constant memory: feed it the
 * response's chunks as they are sent; it keeps only the last 16 KB of text. A JSON answer's `usage`
 * and the usage chunk that ends an SSE stream (`stream_options: { include_usage: true }`) are both
 * read; `prompt_tokens`/`completion_tokens` (chat) and `input_tokens`/`output_tokens` (responses) both
 * count. The last `usage` object with a count wins.
 *
 * @example
 * const sniffer = new UsageSniffer();
 * sniffer.feed('{"id":"x","usage":{"prompt_tokens":9,"completion_tokens":3}}');
 * sniffer.usage(); // { inputTokens: 9, outputTokens: 3 }
 */
export class UsageSniffer {
  readonly #decoder = new TextDecoder();
  #tail = "";

  feed(chunk: string | Uint8Array): void {
    const text = typeof chunk === "string" ? chunk : this.#decoder.decode(chunk, { stream: true });
    const joined = this.#tail + text;
    this.#tail = joined.length > TAIL_CHARS ? joined.slice(joined.length - TAIL_CHARS) : joined;
  }

  /** The usage in what was fed (the last `usage` object with a count), or `undefined` when there was none. */
  usage(): TokenUsage | undefined {
    const tail = this.#tail;
    for (let at = tail.lastIndexOf(KEY); at !== -1; at = at === 0 ? -1 : tail.lastIndexOf(KEY, at - 1)) {
      const object = objectAfter(tail, at + KEY.length);
      if (object === undefined) continue;
      const inputTokens = count(object, ["prompt_tokens", "input_tokens"]);
      const outputTokens = count(object, ["completion_tokens", "output_tokens"]);
      if (inputTokens !== undefined || outputTokens !== undefined) {
        return { inputTokens: inputTokens ?? 0, outputTokens: outputTokens ?? 0 };
      }
    }
    return undefined;
  }
}

/** The JSON object that starts after `: ` at `from` (braces balanced, strings skipped), or undefined. */
function objectAfter(text: string, from: number): Record<string, unknown> | undefined {
  const start = text.indexOf("{", from);
  if (start === -1 || text.slice(from, start).trim() !== ":") return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{") depth++;
    else if (char === "}" && --depth === 0) return parsed(text.slice(start, i + 1));
  }
  return undefined;
}

function parsed(json: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
