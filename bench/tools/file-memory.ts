// Memory kept per byte uploaded into the in-memory batch store: `POST /v1/files` uploads of a JSONL
// file of ~4 KB lines, one per tenant, through `batches.fetch()`; after each, the heap and the memory
// outside it (ArrayBuffers) that stay after a full collection, and what each upload was answered.
//   node --expose-gc --import tsx/esm --conditions=source bench/tools/file-memory.ts <MB per upload> <uploads>
// e.g. `… 199 6`: five uploads fill the default 1 GiB (`maxTotalFileBytes`), the sixth is refused.
import { createBatches } from "@llm-scheduler/batches";
import { createScheduler } from "@llm-scheduler/core";

const megabytes = Number(process.argv[2] ?? 50);
const uploads = Number(process.argv[3] ?? 1);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("Run with node --expose-gc");
const encoder = new TextEncoder();
const BOUNDARY = "file-memory-boundary";

const line = (i: number): string =>
  `${JSON.stringify({ custom_id: `r-${i}`, method: "POST", url: "/v1/chat/completions", body: { model: "m", messages: [{ role: "user", content: "x".repeat(4_200) }] } })}\n`;

/** A multipart body made as it is read: `purpose`, then `megabytes` of lines in 64 KB chunks. */
function body(): ReadableStream<Uint8Array> {
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="in.jsonl"\r\n\r\n`;
  const parts = [head];
  let sent = 0;
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (parts.length > 0) return controller.enqueue(encoder.encode(parts.shift()));
      if (sent >= megabytes * 2 ** 20) {
        controller.enqueue(encoder.encode(`\r\n--${BOUNDARY}--\r\n`));
        return controller.close();
      }
      let chunk = "";
      while (chunk.length < 65_536 && sent + chunk.length < megabytes * 2 ** 20) chunk += line(i++);
      sent += chunk.length;
      controller.enqueue(encoder.encode(chunk));
    },
  });
}

function memory(): { heap: number; outside: number } {
  gc!();
  gc!();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed, outside: usage.external };
}

const scheduler = createScheduler({ maxConcurrency: 1 });
const batches = createBatches({
  scheduler,
  execute: async () => ({ status: 200, body: {} }),
  maxInFlight: 0,
  tenant: (request) => request.headers.get("authorization") ?? undefined,
});
const before = memory();
let kept = 0;
for (let n = 1; n <= uploads; n++) {
  const request = new Request("http://bench.test/v1/files", {
    method: "POST",
    body: body(),
    duplex: "half",
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}`, authorization: `tenant-${n}` },
  } as RequestInit);
  const response = await batches.fetch(request);
  const answer = (await response.json()) as { bytes?: number; error?: { code: string } };
  kept += answer.bytes ?? 0;
  const now = memory();
  const per = (bytes: number) => (kept === 0 ? "-" : (bytes / kept).toFixed(3));
  console.log(
    `upload ${n}: ${response.status} ${answer.error?.code ?? `${((answer.bytes ?? 0) / 2 ** 20).toFixed(1)} MB`}; ` +
      `kept ${(kept / 2 ** 20).toFixed(0)} MB: heap ${per(now.heap - before.heap)} and outside it ` +
      `${per(now.outside - before.outside)} bytes per byte kept`,
  );
}
await batches.close();
await scheduler.close({ timeoutMs: 100 });
