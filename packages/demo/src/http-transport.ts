import type { Attempt, AttemptHooks, Transport } from "@llm-scheduler/simulator";
import { keyOf } from "./keys.js";

/** Options of {@link createHttpTransport}. */
export interface HttpTransportOptions {
  /** Base URL of the gateway. */
  readonly gateway: string;
  /** `model` sent in each request. @default "sim-model" */
  readonly model?: string;
}

const WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "and", "runs", "far"];

/** A prompt of about `tokens` tokens by the usual estimate of four characters per token. */
export function promptOf(tokens: number): string {
  const target = tokens * 4;
  let text = "";
  for (let i = 0; text.length < target; i++) text += `${WORDS[i % WORDS.length]} `;
  return text.slice(0, target);
}

function retryAfterOf(response: Response): number | undefined {
  const ms = Number(response.headers.get("retry-after-ms"));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const seconds = Number(response.headers.get("retry-after"));
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1_000 : undefined;
}

async function receive(attempt: Attempt, hooks: AttemptHooks, response: Response): Promise<void> {
  if (!response.ok) {
    await response.arrayBuffer().catch(() => undefined);
    hooks.failed({
      status: response.status,
      retryAfterMs: retryAfterOf(response),
      message: `HTTP ${response.status}`,
    });
    return;
  }
  if (attempt.request.kind === "chat" && response.body !== null) {
    let first = true;
    for await (const chunk of response.body) {
      if (first && chunk.byteLength > 0) {
        first = false;
        hooks.firstToken();
      }
    }
  } else {
    await response.arrayBuffer();
  }
  hooks.completed();
}

/**
 * The clients' side in real time: each attempt is one OpenAI-style `POST /v1/chat/completions` to the
 * gateway, with the tenant's API key, a prompt of the planned length, `max_tokens`, streaming for chat
 * (the first body bytes are the first token), `x-request-id` and, for a retry, `x-stainless-retry-count`
 * as the official clients send it. The attempt's signal cancels the call.
 *
 * @example
 * const driver = new Driver({ scenario, workload, clock, transport: createHttpTransport({ gateway: url }), recorder });
 */
export function createHttpTransport(options: HttpTransportOptions): Transport {
  const url = new URL("/v1/chat/completions", options.gateway);
  const model = options.model ?? "sim-model";
  return {
    send(attempt, hooks) {
      const { request } = attempt;
      const stream = request.kind === "chat";
      const headers: Record<string, string> = {
        authorization: `Bearer ${keyOf(request.tenant)}`,
        "content-type": "application/json",
        "x-request-id": attempt.id,
      };
      if (attempt.number > 0) headers["x-stainless-retry-count"] = String(attempt.number);
      const body = JSON.stringify({
        model,
        messages: [{ role: "user", content: promptOf(request.promptTokens) }],
        max_tokens: request.maxTokens,
        stream,
      });
      fetch(url, { method: "POST", headers, body, signal: attempt.signal })
        .then((response) => receive(attempt, hooks, response))
        .catch((error: unknown) => hooks.failed({ status: 499, message: (error as Error).message }));
    },
  };
}
