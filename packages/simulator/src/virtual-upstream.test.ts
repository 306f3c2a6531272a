import { VirtualClock } from "@llm-scheduler/core";
import { createLatencyModel } from "@llm-scheduler/upstream-sim";
import { describe, expect, it } from "vitest";
import { LightAbortController } from "./light-abort.js";
import { VirtualUpstream } from "./virtual-upstream.js";

const model = createLatencyModel({
  parallel: 2,
  ttftMs: 40,
  prefillMsPerToken: 0.5,
  tokenMs: 10,
  slowdown: 1,
});

function setup() {
  const clock = new VirtualClock(0);
  const upstream = new VirtualUpstream(model, clock);
  const events: Record<string, string> = {};
  const note = (name: string, what: string) => {
    events[name] =
      events[name] === undefined ? `${what} @${clock.now()}` : `${events[name]}, ${what} @${clock.now()}`;
  };
  const start = (
    name: string,
    promptTokens: number,
    completionTokens: number,
    signal = new AbortController().signal,
  ) =>
    upstream
      .generate({
        promptTokens,
        completionTokens,
        signal,
        onFirstToken: () => note(name, "first"),
      })
      .then(
        () => note(name, "done"),
        () => note(name, "aborted"),
      );
  /** Fires timers one by one, letting promise callbacks run, until nothing is left. */
  const run = async () => {
    for (let guard = 0; guard < 1_000 && clock.nextTimerAt() !== undefined; guard++) {
      clock.runUntilIdle(1);
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { clock, upstream, events, start, run };
}

describe("VirtualUpstream", () => {
  it("times a lone request exactly as the latency model says", async () => {
    const { events, start, run } = setup();
    void start("a", 100, 10);
    await run();
    expect(events).toEqual({ a: `first @${model.ttftMs(100, 1)}, done @${model.requestMs(100, 10, 1)}` });
  });

  it("slows requests that share the batch down by load(active)", async () => {
    const { events, start, run } = setup();
    void start("a", 0, 5);
    void start("b", 0, 5);
    await run();
    // Both run side by side the whole time: every step takes load(2) = 2 times as long.
    expect(events).toEqual({ a: "first @80, done @160", b: "first @80, done @160" });
  });

  it("serves at most `parallel` at once and queues the rest in arrival order", async () => {
    const { events, start, run, upstream } = setup();
    void start("a", 0, 1);
    void start("b", 0, 1);
    void start("c", 0, 1);
    expect(upstream.active).toBe(2);
    expect(upstream.waiting).toBe(1);
    await run();
    // a and b: 40 * load(2) = 80; then c alone: 40 more.
    expect(events).toEqual({
      a: "first @80, done @80",
      b: "first @80, done @80",
      c: "first @120, done @120",
    });
  });

  it("speeds a sequence up when the other one finishes", async () => {
    const { events, start, run } = setup();
    void start("short", 0, 1);
    void start("long", 0, 3);
    await run();
    // Both at load 2 until 80 (short ends; long has its first token); then long alone: 2 tokens * 10.
    expect(events).toEqual({ short: "first @80, done @80", long: "first @80, done @100" });
  });

  it("frees the sequence of an aborted request and drops a waiting one", async () => {
    const { events, start, run, upstream, clock } = setup();
    const running = new LightAbortController();
    const waiting = new AbortController();
    void start("a", 0, 10, running.signal);
    void start("b", 0, 1);
    void start("c", 0, 1, waiting.signal);
    waiting.abort();
    expect(upstream.waiting).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(20);
    running.abort();
    await new Promise((resolve) => setImmediate(resolve));
    await run();
    expect(upstream.active).toBe(0);
    // b ran at load 2 for 20 ms (10 ms of lone work), then alone: 30 ms more.
    expect(events).toEqual({ a: "aborted @20", b: "first @50, done @50", c: "aborted @0" });
  });
});
