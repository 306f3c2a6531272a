import { carriesUsage, type RequestSlot, UsageSniffer } from "@llm-scheduler/adapter-kit";

/**
 * `response` with its body read on the way through for the upstream's `usage` (a JSON answer, or an SSE
 * stream ending with a usage chunk), reported to `slot` after the last chunk; other responses unchanged.
 * Web streams only; only the body's last 16 KB are kept.
 *
 * @example
 * c.res = heldResponse(usageReading(c.res, slot), how, release);
 */
export function usageReading(response: Response, slot: RequestSlot): Response {
  const body = response.body;
  if (body === null || !carriesUsage(response.headers.get("content-type"))) return response;
  const sniffer = new UsageSniffer();
  const reading = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      sniffer.feed(chunk);
      controller.enqueue(chunk);
    },
    flush() {
      const usage = sniffer.usage();
      try {
        if (usage !== undefined) slot.reportUsage(usage);
      } catch {
        // A usage the scheduler refuses (out of range) is not worth failing the response for.
      }
    },
  });
  const { status, statusText, headers } = response;
  return new Response(body.pipeThrough(reading), { status, statusText, headers });
}
