import { createScheduler, VirtualClock } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { createDashboard, sseFrame } from "./index.js";

const decoder = new TextDecoder();

async function nextText(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const { value } = await reader.read();
  return decoder.decode(value);
}

/** Lets the stream's pending `frame()` promise settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function setup(maxStreams = 2) {
  const clock = new VirtualClock(0);
  const scheduler = createScheduler({ clock, maxConcurrency: 4 });
  const dashboard = createDashboard({
    scheduler,
    access: "aggregate",
    maxStreams,
    intervalMs: 1_000,
    historyMs: 0,
  });
  const connect = (signal?: AbortSignal) =>
    dashboard(new Request("http://x/dashboard/api/events", signal === undefined ? {} : { signal }));
  return { clock, scheduler, dashboard, connect };
}

describe("Server-Sent Events", () => {
  it("frames each snapshot as one event with one JSON data line", () => {
    expect(sseFrame("snapshot", { a: "x\ny" })).toBe('event: snapshot\ndata: {"a":"x\\ny"}\n\n');
  });

  it("sends a retry hint, a snapshot at once, then one per interval on the scheduler's clock", async () => {
    const { clock, scheduler, dashboard, connect } = setup();
    const response = await connect();
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const reader = response.body!.getReader();
    expect(await nextText(reader)).toBe("retry: 2000\n\n");
    const first = await nextText(reader);
    expect(first).toMatch(/^event: snapshot\ndata: \{.*\}\n\n$/);
    expect(JSON.parse(first.split("\n")[1]!.slice(6)).running).toBe(0);
    let finish = () => {};
    const run = scheduler.run(() => new Promise<void>((done) => (finish = done)), { priority: "batch" });
    await settle();
    clock.advance(1_000);
    const second = JSON.parse((await nextText(reader)).split("\n")[1]!.slice(6));
    expect(second).toMatchObject({ at: 1_000, running: 1 });
    expect(clock.pendingTimers).toBeGreaterThan(0);
    await reader.cancel();
    dashboard.close();
    finish();
    await run;
  });

  it("queues at most a few frames for a client that stops reading", async () => {
    const { clock, dashboard, connect } = setup();
    const reader = (await connect()).body!.getReader();
    await settle();
    for (let i = 0; i < 30; i++) {
      clock.advance(1_000);
      await settle();
    }
    let frames = 0;
    const idle = Symbol("idle");
    for (;;) {
      const next = await Promise.race([reader.read(), settle().then(() => idle)]);
      if (next === idle) break;
      frames += (decoder.decode((next as ReadableStreamReadResult<Uint8Array>).value).match(/event: /g) ?? [])
        .length;
    }
    expect(frames).toBeGreaterThan(0);
    expect(frames).toBeLessThanOrEqual(6);
    await reader.cancel();
    dashboard.close();
  });

  it("caps concurrent streams with a 503 and frees a place, and its timer, when a client leaves", async () => {
    const { clock, dashboard, connect } = setup(1);
    const timersBefore = clock.pendingTimers;
    const first = await connect();
    const reader = first.body!.getReader();
    await nextText(reader);
    await nextText(reader);
    expect(clock.pendingTimers).toBe(timersBefore + 1);
    const refused = await connect();
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect((await refused.json()).error.code).toBe("too_many_streams");
    await reader.cancel();
    expect(clock.pendingTimers).toBe(timersBefore);
    const controller = new AbortController();
    const again = await connect(controller.signal);
    expect(again.status).toBe(200);
    controller.abort(); // a request whose client aborts ends its stream too
    await settle();
    expect(clock.pendingTimers).toBe(timersBefore);
    expect((await connect()).status).toBe(200);
    dashboard.close(); // and close() ends every stream
    expect(clock.pendingTimers).toBe(timersBefore);
  });
});
