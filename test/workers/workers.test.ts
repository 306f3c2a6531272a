import { afterEach, describe, expect, it } from "vitest";
import { edgeRuntimes } from "../edge-runtimes/install.js";
import { bundleWorker } from "./build.js";

/** What the test uses of Miniflare, which lives in test/edge-runtimes (out of the root install). */
interface Miniflare {
  readonly ready: Promise<URL>;
  dispose(): Promise<void>;
}
type MiniflareClass = new (options: Record<string, unknown>) => Miniflare;
const miniflarePath = `${edgeRuntimes}node_modules/miniflare/dist/src/index.js`;
const { Miniflare } = (await import(miniflarePath)) as { Miniflare: MiniflareClass };

/**
 * The Hono middleware in Cloudflare's workerd (Miniflare 4), with one module-level scheduler of limit 2
 * per isolate (`worker-app.ts`, bundled as workerd gets it). Before the fix, of six concurrent streamed
 * requests three finished, three were cancelled by workerd as hung, and `running` stayed at 2 for good.
 */

interface WorkerMetrics {
  running: number;
  queued: number;
  completed: number;
  failed: number;
  streaming: number;
  maxStreaming: number;
}

let miniflare: Miniflare | undefined;

afterEach(async () => {
  await miniflare?.dispose();
  miniflare = undefined;
});

/** Starts the Worker; `flags` are workerd compatibility flags (`enable_request_signal` tells it of a client that left). */
async function startWorker(
  flags: string[] = [],
  metricsPath = "/metrics",
): Promise<{ base: string; metrics: () => Promise<WorkerMetrics> }> {
  miniflare = new Miniflare({
    modules: true,
    script: await bundleWorker(),
    compatibilityDate: "2026-07-01",
    compatibilityFlags: flags,
  });
  const base = String(await miniflare.ready).replace(/\/$/, "");
  const metrics = async () => (await (await fetch(`${base}${metricsPath}`)).json()) as WorkerMetrics;
  return { base, metrics };
}

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("schedulerMiddleware in workerd", () => {
  it.each([
    ["schedulerMiddleware", "/v1", "/metrics"],
    ["scheduled(app)", "/app/v1", "/app-metrics"],
  ])(
    "%s finishes six concurrent streamed requests two at a time, and running comes back to 0",
    async (_shape, v1, metricsPath) => {
      const { base, metrics } = await startWorker([], metricsPath);
      const answers = await Promise.all(
        Array.from({ length: 6 }, async () => {
          const response = await fetch(`${base}${v1}/stream?chunks=5&gapMs=40`);
          return { status: response.status, chunks: (await response.text()).split("\n\n").length - 1 };
        }),
      );
      expect(answers).toEqual(Array.from({ length: 6 }, () => ({ status: 200, chunks: 5 })));
      await eventually(async () => (await metrics()).completed === 6, "six completions");
      expect(await metrics()).toMatchObject({
        running: 0,
        queued: 0,
        completed: 6,
        failed: 0,
        maxStreaming: 2,
      });
    },
  );

  it("with enable_request_signal, gives the slot of a client that leaves mid-stream or queued to the next request", async () => {
    const { base, metrics } = await startWorker(["enable_request_signal"]);
    const holders = await Promise.all(
      [0, 1].map(async () => {
        const client = new AbortController();
        const response = await fetch(`${base}/v1/stream?chunks=200&gapMs=40`, { signal: client.signal });
        const reader = response.body!.getReader();
        await reader.read();
        return { client, reader };
      }),
    );
    const leaver = new AbortController();
    const leaving = fetch(`${base}/v1/stream?chunks=2&gapMs=10`, { signal: leaver.signal }).catch(
      (error: Error) => error.name,
    );
    const waiting = fetch(`${base}/v1/stream?chunks=3&gapMs=10`).then(async (r) => [
      r.status,
      await r.text(),
    ]);
    await eventually(async () => (await metrics()).queued === 2, "two queued requests");
    leaver.abort();
    expect(await leaving).toBe("AbortError");
    for (const { client, reader } of holders) {
      await reader.cancel();
      client.abort();
    }
    const [status, text] = await waiting;
    expect(status).toBe(200);
    expect(text).toContain("data: chunk 2");
    // A client that leaves while queued is noticed by workerd only once its response starts: it keeps
    // its place, and when its turn comes its slot is released as soon as the response begins.
    await eventually(async () => {
      const now = await metrics();
      return now.running === 0 && now.queued === 0;
    }, "every slot back").catch(async (error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify(await metrics())}`);
    });
    expect(await metrics()).toMatchObject({ completed: 1, failed: 3 });
    const after = await fetch(`${base}/v1/stream?chunks=2&gapMs=10`);
    expect([after.status, await after.text()]).toEqual([200, "data: chunk 0\n\ndata: chunk 1\n\n"]);
    expect(await metrics()).toMatchObject({ running: 0, queued: 0, completed: 2 });
  });

  it("times queued requests out on time, though the request whose timer the scheduler armed has ended", async () => {
    const { base } = await startWorker();
    const began = Date.now();
    const request = (delayMs: number, holdMs: number) =>
      new Promise((resolve) => setTimeout(resolve, delayMs))
        .then(() => fetch(`${base}/short/wait?ms=${holdMs}`))
        .then(async (response) => ({
          status: response.status,
          at: Date.now() - began,
          body: await response.text(),
        }));
    // Limit 1, 300 ms queue timeout: the first holds the slot for 2.5 s; the next three must get 429s
    // after about 300 ms, not when the slot frees. Before the fix, the first of them timed out and the
    // timer it re-armed for the others ended with it.
    const [holder, ...queued] = await Promise.all([
      request(0, 2_500),
      request(100, 10),
      request(200, 10),
      request(250, 10),
    ]);
    expect(holder).toMatchObject({ status: 200, body: "done" });
    for (const answer of queued) {
      expect(answer.status).toBe(429);
      expect(JSON.parse(answer.body)).toMatchObject({
        error: { type: "rate_limit_exceeded", code: "QUEUE_TIMEOUT" },
      });
      expect(answer.at).toBeLessThan(1_800);
    }
  });

  it("without enable_request_signal, takes back the slot of a client that left mid-stream once its request stops beating", async () => {
    const { base, metrics } = await startWorker();
    const open = async (query: string) => {
      const client = new AbortController();
      const response = await fetch(`${base}/v1/stream?${query}`, { signal: client.signal });
      const reader = response.body!.getReader();
      await reader.read();
      return async () => {
        await reader.cancel();
        client.abort();
      };
    };
    const leaveA = await open("chunks=500&gapMs=40");
    const leaveB = await open("chunks=500&gapMs=40");
    const queuedC = open("chunks=500&gapMs=40"); // waits: both slots are taken
    await eventually(async () => (await metrics()).queued === 1, "C queued");
    await leaveA();
    await leaveB();
    // workerd cancels A and B without a word to the Worker; C's beats notice that they stopped (after
    // 3 s) and release their slots, so C is served; then C's client leaves too, after it had queued.
    const leaveC = await queuedC;
    await leaveC();
    const began = Date.now();
    const next = await Promise.all(
      [0, 1].map(async () => {
        const response = await fetch(`${base}/v1/stream?chunks=2&gapMs=10`);
        return [response.status, await response.text()];
      }),
    );
    expect(next).toEqual([0, 1].map(() => [200, "data: chunk 0\n\ndata: chunk 1\n\n"]));
    expect(Date.now() - began).toBeLessThan(8_000);
    // Whatever C left is taken back by the next request that comes once C has stopped beating.
    await eventually(async () => {
      await (await fetch(`${base}/v1/stream?chunks=1&gapMs=1`)).text();
      const now = await metrics();
      return now.running === 0 && now.queued === 0;
    }, "every slot back");
    expect((await metrics()).completed).toBeGreaterThanOrEqual(3);
  });
});
