import { openaiError } from "./respond.js";
import type { UpstreamLease } from "./upstreams/picker.js";

/** The upstream headers passed back to the client (the rest are hop-by-hop or the server's own). */
const PASSED = ["content-type", "x-request-id", "retry-after", "retry-after-ms"];

/** When the first byte of the answer came, and how the answer ended. */
export interface ProxyTiming {
  /** The status sent to the client (502 when the server could not be reached). */
  status: number;
  firstByteAt: number | undefined;
  outcome: "completed" | "client_closed" | "upstream_error";
}

/** A call to one server: the path under `/v1`, the body to send and the run's signal. */
export interface UpstreamCall {
  readonly lease: UpstreamLease;
  readonly path: string;
  readonly body: string | Uint8Array;
  readonly apiKey: string | undefined;
  readonly signal: AbortSignal;
  readonly requestId: string;
  /** Called once when the answer has ended (last chunk, client gone or failure), with its timing. */
  readonly done: (timing: ProxyTiming) => void;
}

/**
 * Sends the call upstream and answers with the server's status, its body streamed through. The lease is
 * given back when the answer ends, however it ends. A server that cannot be reached is a 502 that names
 * no address; the caller's signal (client gone, run timeout, close) cancels the upstream call.
 *
 * @example
 * return forward({ lease, path: "/chat/completions", body, apiKey, signal, requestId, done });
 */
export async function forward(call: UpstreamCall): Promise<Response> {
  const timing: ProxyTiming = { status: 502, firstByteAt: undefined, outcome: "completed" };
  let ended = false;
  const end = (outcome: ProxyTiming["outcome"]) => {
    if (ended) return;
    ended = true;
    timing.outcome = outcome;
    call.lease.release();
    call.done(timing);
  };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-request-id": call.requestId,
  };
  if (call.apiKey !== undefined) headers.authorization = `Bearer ${call.apiKey}`;
  let answer: Response;
  try {
    answer = await fetch(`${call.lease.base}/v1${call.path}`, {
      method: "POST",
      headers,
      body: call.body as BodyInit,
      signal: call.signal,
    });
  } catch {
    end(call.signal.aborted ? "client_closed" : "upstream_error");
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
        end(call.signal.aborted ? "client_closed" : "upstream_error");
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
