import { afterEach, describe, expect, it, vi } from "vitest";
import type { UpstreamOptions } from "./options.js";
import { startUpstream, type Upstream } from "./server.js";

/** Poll often: the default 50 ms interval would make these tests slow. */
const poll = { timeout: 2000, interval: 2 };

let sim: Upstream | undefined;

afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(options: UpstreamOptions): Promise<Upstream> {
  sim = await startUpstream(options);
  return sim;
}

function request(
  upstream: Upstream,
  body: object,
  signal: AbortSignal,
  headers: Record<string, string> = {},
) {
  return fetch(`${upstream.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ messages: [{ role: "user", content: "Hi" }], ...body }),
    signal,
  });
}

describe("a client that goes away", () => {
  it("mid-stream frees its sequence at once", async () => {
    const upstream = await start({ parallel: 1, ttftMs: 0, tokenMs: 5 });
    const controller = new AbortController();
    // 1000 tokens at 5 ms would take 5 s: the test only passes quickly if the abort really frees the slot.
    const res = await request(upstream, { stream: true, max_tokens: 1000 }, controller.signal);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toMatch(/^data: /);
    controller.abort();
    await vi.waitFor(
      () => expect(upstream.stats()).toMatchObject({ inFlight: 0, cancelled: 1, served: 0 }),
      poll,
    );
    const next = await request(upstream, { max_tokens: 2 }, new AbortController().signal);
    expect(next.status).toBe(200);
    await next.json();
    expect(upstream.stats().served).toBe(1);
  });

  it("while waiting inside the server leaves the queue at once", async () => {
    const upstream = await start({ parallel: 1, ttftMs: 0, tokenMs: 1 });
    const holder = new AbortController();
    const held = request(upstream, {}, holder.signal, { "x-sim-fault": "hang" }).catch(() => undefined);
    await vi.waitFor(() => expect(upstream.stats().inFlight).toBe(1), poll);
    const waiter = new AbortController();
    const waiting = request(upstream, {}, waiter.signal).catch(() => undefined);
    await vi.waitFor(() => expect(upstream.stats().queued).toBe(1), poll);
    waiter.abort();
    await waiting;
    await vi.waitFor(
      () => expect(upstream.stats()).toMatchObject({ queued: 0, inFlight: 1, cancelled: 1 }),
      poll,
    );
    holder.abort();
    await held;
    await vi.waitFor(() => expect(upstream.stats()).toMatchObject({ inFlight: 0, cancelled: 2 }), poll);
  });

  it("before a non-streamed answer frees its sequence", async () => {
    const upstream = await start({ parallel: 1, ttftMs: 0, tokenMs: 5 });
    const controller = new AbortController();
    const pending = request(upstream, { max_tokens: 1000 }, controller.signal).catch(() => undefined);
    await vi.waitFor(() => expect(upstream.stats().inFlight).toBe(1), poll);
    controller.abort();
    await pending;
    await vi.waitFor(() => expect(upstream.stats()).toMatchObject({ inFlight: 0, cancelled: 1 }), poll);
  });
});
