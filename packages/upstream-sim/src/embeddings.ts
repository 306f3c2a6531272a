import type { IncomingMessage, ServerResponse } from "node:http";
import type { SimContext } from "./context.js";
import { HttpError } from "./errors.js";
import { readBody, sendError, sendJson } from "./http-io.js";

/** Dimensions of a simulated embedding. */
const DIMENSIONS = 8;

/** A deterministic unit vector for a text (the same text always gives the same vector). */
function vectorOf(text: string): number[] {
  const out = new Array<number>(DIMENSIONS).fill(0);
  for (let i = 0; i < text.length; i++) out[i % DIMENSIONS]! += (text.charCodeAt(i) % 31) + 1;
  const norm = Math.hypot(...out) || 1;
  return out.map((v) => v / norm);
}

/** The inputs of an embeddings body: a string or an array of strings (token arrays are refused). */
function inputsOf(body: unknown): string[] {
  const input = (body as { input?: unknown } | null)?.input;
  if (typeof input === "string") return [input];
  if (Array.isArray(input) && input.length > 0 && input.every((item) => typeof item === "string"))
    return input;
  throw new HttpError(400, "`input` must be a string or an array of strings", {
    code: "invalid_value",
    param: "input",
  });
}

/**
 * `POST /v1/embeddings`: OpenAI's answer shape with deterministic 8-dimension vectors, after
 * `ttftMs` (no sequence is taken: embeddings are short); `usage` counts about four characters a token.
 *
 * @example
 * await fetch(`${sim.url}/v1/embeddings`, { method: "POST", body: JSON.stringify({ model: "m", input: "hi" }) });
 */
export async function handleEmbeddings(
  context: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  try {
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (error) {
      if (error instanceof HttpError) throw error;
      throw new HttpError(400, "The body is not valid JSON", { code: "invalid_json" });
    }
    const inputs = inputsOf(body);
    await new Promise((resolve) => setTimeout(resolve, context.options.ttftMs));
    const tokens = inputs.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
    const model = (body as { model?: unknown }).model;
    sendJson(res, 200, {
      object: "list",
      data: inputs.map((text, index) => ({ object: "embedding", index, embedding: vectorOf(text) })),
      model: typeof model === "string" ? model : context.options.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  } catch (error) {
    if (error instanceof HttpError) sendError(res, error);
    else res.destroy();
  }
}
