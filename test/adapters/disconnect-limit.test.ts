import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import express4 from "express4";
import { afterEach, describe, expect, it } from "vitest";
import type { ContractApp } from "./contract.js";
import { startCountingUpstream } from "./counting-upstream.js";
import {
  type StartGateway,
  startExpressGateway,
  startHonoGateway,
  startHonoScheduledGateway,
  startKoaGateway,
} from "./gateways.js";
import { until } from "./probe.js";
import {
  startWindingExpressGateway,
  startWindingHonoGateway,
  startWindingKoaGateway,
} from "./winding-gateways.js";

const gateways: ReadonlyArray<readonly [string, StartGateway]> = [
  ["express, upstream fetch aborted by the signal", startExpressGateway],
  ["koa, upstream fetch aborted by the signal", startKoaGateway],
  ["hono, upstream fetch aborted by the signal", startHonoGateway],
  ["hono scheduled(app), upstream fetch aborted by the signal", startHonoScheduledGateway],
  ["express, abort noticed between chunks", startWindingExpressGateway()],
  ["express 4, abort noticed between chunks", startWindingExpressGateway(express4)],
  ["koa, abort noticed between chunks", startWindingKoaGateway],
  ["hono, abort noticed between chunks", startWindingHonoGateway],
];

const LIMIT = 4;
const CLIENTS = 40;

/** Starts a streamed completion through the gateway and returns a reader of its body. */
async function streamCompletion(url: string, signal: AbortSignal): Promise<ReadableStreamDefaultReader> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ messages: [{ role: "user", content: "count" }], stream: true }),
    signal,
  });
  return response.body!.getReader();
}

/** Streams a completion through the gateway, reads `chunks` chunks of it, then hangs up. */
async function leaveMidStream(url: string, chunks: number): Promise<void> {
  const client = new AbortController();
  try {
    const reader = await streamCompletion(url, client.signal);
    for (let read = 0; read < chunks; read++) if ((await reader.read()).done) break;
  } finally {
    client.abort();
  }
}

/** Streams a completion through the gateway and hangs up after `leaveAfterMs`, wherever it is by then. */
async function leaveAfter(url: string, leaveAfterMs: number): Promise<void> {
  const client = new AbortController();
  const timer = setTimeout(() => client.abort(), leaveAfterMs);
  try {
    const reader = await streamCompletion(url, client.signal);
    while (!(await reader.read()).done) {}
  } finally {
    clearTimeout(timer);
  }
}

describe.each(gateways)("clients that leave mid-stream through a %s gateway", (_name, startGateway) => {
  let upstream: Awaited<ReturnType<typeof startCountingUpstream>> | undefined;
  let gateway: ContractApp | undefined;
  let scheduler: Scheduler | undefined;

  afterEach(async () => {
    await gateway?.close();
    await scheduler?.close({ timeoutMs: 100 });
    await upstream?.close();
  });

  it("never let the upstream serve more requests than the limit", { timeout: 30_000 }, async () => {
    upstream = await startCountingUpstream();
    scheduler = createScheduler({ maxConcurrency: LIMIT, abortGraceMs: 5_000 });
    const started = await startGateway(scheduler, upstream.url);
    gateway = started;
    await Promise.all(
      Array.from({ length: CLIENTS }, (_, index) =>
        leaveMidStream(started.url, 1 + (index % 4)).catch(() => undefined),
      ),
    );
    await until(() => scheduler!.metrics().running === 0, "every slot to be released", 10_000);
    await until(() => upstream!.open === 0, "the upstream to see every client gone", 10_000);
    expect(upstream.received).toBe(CLIENTS);
    expect(upstream.maxOpen).toBeLessThanOrEqual(LIMIT);
    expect(scheduler.metrics()).toMatchObject({ running: 0, queued: 0, started: CLIENTS });
  });

  it("keeps the limit and leaks nothing when clients leave at every moment", {
    timeout: 30_000,
  }, async () => {
    upstream = await startCountingUpstream();
    scheduler = createScheduler({ maxConcurrency: LIMIT, abortGraceMs: 5_000 });
    const started = await startGateway(scheduler, upstream.url);
    gateway = started;
    // Before connecting, while queued, while the handler calls the upstream, mid-stream: 0 to 39 ms.
    await Promise.all(
      Array.from({ length: CLIENTS }, (_, index) =>
        leaveAfter(started.url, (index * 7) % 40).catch(() => undefined),
      ),
    );
    await until(() => scheduler!.metrics().running === 0, "every slot to be released", 10_000);
    await until(() => upstream!.open === 0, "the upstream to see every client gone", 10_000);
    // fetch() rejects as soon as its signal aborts, but undici closes the aborted request's connection a
    // moment later; a slot freed by that rejection may send the next request first. So the upstream can
    // carry one more than the limit for that moment, never for longer (1.6 to 3.4 ms in all over a run
    // here, on 4 of 40 clients at most); a slot held past its end, or granted twice, shows as far more.
    expect(upstream.maxOpen).toBeLessThanOrEqual(LIMIT + 1);
    expect(upstream.msAbove(LIMIT)).toBeLessThan(50);
    const { started: ran, queued, rejected } = scheduler.metrics();
    expect(queued).toBe(0);
    expect(ran + (rejected.ABORTED ?? 0)).toBeLessThanOrEqual(CLIENTS);
    expect(upstream.received).toBeLessThanOrEqual(ran);
  });
});
