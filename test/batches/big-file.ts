import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { nodeListener, type ServedBatches } from "@llm-scheduler/batches";

const BOUNDARY = "----batches-big-file";

/**
 * A `multipart/form-data` upload of a generated JSONL file of about `megabytes` MB (lines of about 4 KB,
 * at most 50,000 of them, as in a 200 MB, 50,000-line file), produced chunk by chunk: the whole file never exists in memory.
 *
 * @example
 * const { body, contentType, lines } = bigUpload(20);
 * await fetch(url, { method: "POST", body, headers: { "content-type": contentType }, duplex: "half" });
 */
export function bigUpload(megabytes: number): {
  body: ReadableStream<Uint8Array>;
  contentType: string;
  lines: number;
} {
  const encoder = new TextEncoder();
  const bytes = megabytes * 1_048_576;
  const lines = Math.max(1, Math.min(50_000, Math.round(bytes / 4_200))); // OpenAI's limit: 50,000 lines
  const lineOf = (n: number, filler: string): string =>
    `${JSON.stringify({ custom_id: `r-${n}`, method: "POST", url: "/v1/chat/completions", body: { model: "m", messages: [{ role: "user", content: filler }] } })}\n`;
  const filler = "x".repeat(Math.max(1, Math.floor(bytes / lines) - lineOf(lines, "").length));
  const head =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.jsonl"\r\nContent-Type: application/jsonl\r\n\r\n`;
  let n = -1;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (n === -1) controller.enqueue(encoder.encode(head));
      else if (n >= lines) {
        controller.enqueue(encoder.encode(`\r\n--${BOUNDARY}--\r\n`));
        controller.close();
        return;
      } else {
        let text = "";
        for (let i = 0; i < 16 && n + i < lines; i++) text += lineOf(n + i, filler);
        n += 15;
        controller.enqueue(encoder.encode(text));
      }
      n++;
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${BOUNDARY}`, lines };
}

/** Serves `batches.fetch` on 127.0.0.1, a free port. */
export async function serveBatches(batches: ServedBatches): Promise<{ url: string; server: Server }> {
  const server = createServer(nodeListener((request) => batches.fetch(request)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Node's `gc()`, made available without the `--expose-gc` flag. */
function collector(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

/**
 * Runs `work` while sampling memory every 25 ms: the peak resident set size, and the peak of live memory
 * (`heapUsed + arrayBuffers` right after a full collection), which shows what is really held, apart
 * from garbage not yet collected.
 */
export async function peakMemory<T>(
  work: () => Promise<T>,
): Promise<{ value: T; rss: number; live: number; baseline: number }> {
  const gc = collector();
  const live = (): number => {
    gc();
    const usage = process.memoryUsage();
    return usage.heapUsed + usage.arrayBuffers;
  };
  const baseline = live();
  let rss = process.memoryUsage.rss();
  let peakLive = baseline;
  const timer = setInterval(() => {
    rss = Math.max(rss, process.memoryUsage.rss());
    peakLive = Math.max(peakLive, live());
  }, 25);
  try {
    const value = await work();
    return {
      value,
      rss: Math.max(rss, process.memoryUsage.rss()),
      live: Math.max(peakLive, live()),
      baseline,
    };
  } finally {
    clearInterval(timer);
  }
}
