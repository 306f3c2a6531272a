import type { Permit } from "@llm-scheduler/core";
import { type Pool, PoolError, PoolErrorCode } from "@llm-scheduler/pool";
import { openaiError } from "./respond.js";

/** The upstream headers passed back to the client (the rest are hop-by-hop or the server's own). */
const PASSED = ["content-type", "x-request-id", "retry-after", "retry-after-ms"];

/** When the first byte of the answer came, and how the answer ended. */
export interface ProxyTiming {
  /** The status sent to the client (502 when the server could not be reached). */
  status: number;
  firstByteAt: number | undefined;
  outcome: "completed" | "client_closed" | "upstream_error";
}

/** A call to the model's pool: the slot it holds, the path under `/v1`, the body to send. */
export interface UpstreamCall {
  readonly pool: Pool;
  /** The request's slot in the model's scheduler (the middleware's): its signal cancels the call. */
  readonly permit: Permit;
  readonly path: string;
  readonly body: string | Uint8Array<ArrayBuffer>;
  readonly apiKey: string | undefined;
  readonly requestId: string;
  /** Called once when the answer has ended (last chunk, client gone or failure), with its timing. */
  readonly done: (timing: ProxyTiming) => void;
}

/** The answer when the pool could not serve the call: never an address. */
function unavailable(error: PoolError): Response {
  if (error.code === PoolErrorCode.NO_REPLICA) {
    return openaiError(503, "No server of this model is healthy now.", "no_healthy_upstream", null, {
      "retry-after": "1",
    });
  }
  return openaiError(502, "The model's server could not be reached.", "upstream_unreachable");
}

/**
 * Sends the call through the model's pool (a replica the router picks; another one if it fails before
 * its first byte) and answers with the server's status, its body streamed through; the pool holds the
 * replica's slot until the answer ends, however it ends. A pool that found no server is a 502 (or 503
 * with none healthy) that names no address; the permit's signal (client gone, run timeout, close,
 * preemption) cancels the upstream call.
 *
 * @example
 * return forward({ pool, permit, path: "/chat/completions", body, apiKey, requestId, done });
 */
export async function forward(call: UpstreamCall): Promise<Response> {
  const timing: ProxyTiming = { status: 502, firstByteAt: undefined, outcome: "completed" };
  let ended = false;
  const end = (outcome: ProxyTiming["outcome"]) => {
    if (ended) return;
    ended = true;
    timing.outcome = outcome;
    call.done(timing);
  };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-request-id": call.requestId,
  };
  if (call.apiKey !== undefined) headers.authorization = `Bearer ${call.apiKey}`;
  let answer: Response;
  const { signal } = call.permit;
  try {
    answer = await call.pool.forward(call.permit, `/v1${call.path}`, {
      method: "POST",
      headers,
      body: call.body,
    });
  } catch (error) {
    end(signal.aborted ? "client_closed" : "upstream_error");
    if (error instanceof PoolError) return unavailable(error);
    return openaiError(502, "The model's server could not be reached.", "upstream_unreachable");
  }
  timing.status = answer.status;
  const passed = new Headers();
  for (const name of PASSED) {
    const value = answer.headers.get(name);
    if (value !== null) passed.set(name, value);
  }
  if (answer.body === null) {
    end("completed");
    return new Response(null, { status: answer.status, headers: passed });
  }
  const reader = answer.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          end("completed");
          return;
        }
        timing.firstByteAt ??= performance.now();
        controller.enqueue(value);
      } catch (error) {
        end(signal.aborted ? "client_closed" : "upstream_error");
        controller.error(error);
      }
    },
    cancel(reason) {
      end("client_closed");
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: answer.status, headers: passed });
}
