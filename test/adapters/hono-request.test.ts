import { runAdapterContract } from "./contract.js";
import { honoContractApp } from "./hono-app.js";

/**
 * What a client's disconnect does on a web runtime, done by hand since `app.request()` has no socket:
 * the request's signal aborts, and the response body the client was reading is cancelled under it.
 */
function severable(body: ReadableStream<Uint8Array>, signal: AbortSignal): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      signal.addEventListener(
        "abort",
        () => {
          controller.error(signal.reason);
          reader.cancel(signal.reason).catch(() => undefined);
        },
        { once: true },
      );
    },
    async pull(controller) {
      const next = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (signal.aborted) return;
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

runAdapterContract("hono via app.request()", async (setup) => {
  const app = honoContractApp(setup);
  return {
    fetch: async (path, init) => {
      const signal = init?.signal;
      // A client that leaves before any answer: `app.request()` itself would wait for the handler.
      const left = new Promise<never>((_, reject) =>
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true }),
      );
      left.catch(() => undefined);
      const response = await Promise.race([app.request(path, init), left]);
      if (!signal || response.body === null) return response;
      if (signal.aborted) {
        await response.body.cancel(signal.reason);
        throw signal.reason;
      }
      return new Response(severable(response.body, signal), response);
    },
    close: async () => undefined,
  };
});
