import { createScheduler } from "@llm-scheduler/core";
import { startUpstream } from "@llm-scheduler/upstream-sim";
import { describe, expect, it } from "vitest";
import {
  runDisconnects,
  startPipeExpressGateway,
  startReadmeExpressGateway,
  startThrowingExpressGateway,
} from "./disconnect-run.js";
import { type StartGateway, startHonoGateway, startKoaGateway } from "./gateways.js";
import { until } from "./probe.js";

const ROUTE = "/v1/chat/completions";

describe.each([
  ["pipes the upstream's body into the response", startPipeExpressGateway],
  ["lets the aborted upstream call throw (Express's error handler)", startThrowingExpressGateway],
] as const)("an Express handler that %s, its client gone mid-stream", (_name, startWith) => {
  it("frees the slot within 100 ms of the handler's work ending, not at abortGraceMs", {
    timeout: 30_000,
  }, async () => {
    const upstream = await startUpstream({ parallel: 1, ttftMs: 2, tokenMs: 5, prefillMsPerToken: 0 });
    const scheduler = createScheduler({ maxConcurrency: 1, abortGraceMs: 10_000 });
    let endedAt = 0;
    const gateway = await startWith(() => {
      endedAt = performance.now();
    })(scheduler, upstream.url);
    try {
      for (let round = 0; round < 10; round++) {
        endedAt = 0;
        const client = new AbortController();
        const response = await fetch(`${gateway.url}${ROUTE}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            messages: [{ role: "user", content: "hi" }],
            stream: true,
            max_tokens: 100,
          }),
          signal: client.signal,
        });
        await response.body!.getReader().read(); // mid-stream
        client.abort();
        await until(() => endedAt > 0, "the handler's work to end", 2_000);
        while (scheduler.metrics().running > 0 && performance.now() - endedAt < 2_000) {
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        expect(performance.now() - endedAt).toBeLessThan(100);
      }
      expect(scheduler.metrics()).toMatchObject({ running: 0, started: 10 });
    } finally {
      await gateway.close();
      await scheduler.close({ timeoutMs: 100 });
      await upstream.close();
    }
  });
});

// The figure of issue 27 (2,000 a framework): DISCONNECT_REQUESTS=2000 pnpm vitest run test/adapters/disconnect-run.test.ts
// 100 by default: every bound below is a share or a ratio (no stream fails, over a quarter leave, Express
// within twice Koa's time), not a count, and 100 requests give each framework some 50 departures at
// random moments; 300 took three times as long to check the same bounds.
const REQUESTS = Number(process.env.DISCONNECT_REQUESTS ?? 100);

describe("clients that leave mid-stream at random moments", () => {
  it(`take Express no longer than twice Koa's time (${REQUESTS} requests a framework)`, {
    timeout: 600_000,
  }, async () => {
    const runs: Array<readonly [string, StartGateway]> = [
      ["koa", startKoaGateway],
      ["hono", startHonoGateway],
      ["express, the README's handler", startReadmeExpressGateway],
      ["express, a pipe() handler", startPipeExpressGateway()],
      ["express, a handler that throws", startThrowingExpressGateway()],
    ];
    const ms = new Map<string, number>();
    for (const [name, start] of runs) {
      const { scheduler: _scheduler, ...run } = await runDisconnects(start, {
        requests: REQUESTS,
        clients: 32,
        seed: 27,
      });
      console.log(`disconnect run, ${name}: ${JSON.stringify(run)}`);
      expect(run.failed).toEqual({}); // every client that stayed read its whole stream
      expect(run.left).toBeGreaterThan(REQUESTS / 4);
      ms.set(name, run.ms);
    }
    const koa = ms.get("koa")!;
    for (const [name, took] of ms) if (name.startsWith("express")) expect(took, name).toBeLessThan(2 * koa);
  });
});
