import { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { LlmScheduler } from "@llm-scheduler/core/compat";
import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";
import { afterEach, describe, expect, it, vi } from "vitest";
import { getBatchProgress, submitBatch } from "./write-up/batchController.js";

/**
 * The write-up's three programs (`./write-up/`) run as written. They hard-code their ports (`listen(3000)`,
 * an upstream on 127.0.0.1:8000) and end with `process.exit(0)`, so the harness, not the programs, adapts:
 * `listen(3000)` becomes port 0 on 127.0.0.1, `fetch` to port 8000 goes to a real upstream simulator,
 * `process.exit` is recorded, and the simulation runs on fake timers.
 */

/** A deterministic `Math.random` (a linear congruential generator), so the simulation is repeatable. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) % 2 ** 32;
    return state / 2 ** 32;
  };
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe("the write-up's simulate.ts", () => {
  it("runs in virtual time: all 20 interactive tasks finish with a p95 wait far below the batch backlog's", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] });
    vi.spyOn(Math, "random").mockImplementation(seededRandom(7));
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.join(" ")));
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    await import("./write-up/simulate.js");
    await vi.advanceTimersByTimeAsync(30_000);
    expect(exit).toHaveBeenCalledWith(0);
    expect(lines[0]).toBe("interactive tasks: 20");
    const p95 = Number(/^p95 wait time: (\d+) ms$/.exec(lines[2] ?? "")?.[1]);
    // 60 batch tasks of 0.8-1.5 s on 4 slots take about 17 s; served in arrival order, the chats would
    // wait that long. Weighted 4:1 with a reserved slot, they are done in a few seconds.
    expect(p95).toBeGreaterThan(0);
    expect(p95).toBeLessThan(5_000);
  });
});

describe("the write-up's batchController.ts", () => {
  it("tracks a batch's progress, counting the items refused by maxQueueSize as failed", async () => {
    const scheduler = new LlmScheduler({ maxConcurrency: 2, maxQueueSize: 30 });
    const items = Array.from({ length: 50 }, (_, i) => ({ prompt: `item ${i}` }));
    await submitBatch({ batchId: "b1", items }, scheduler);
    // One starts at once (the other slot is kept for interactive work), thirty wait, and the other
    // nineteen find the queue full.
    expect(getBatchProgress("b1")).toEqual({ done: 31, total: 50, failed: 19 });
    expect(getBatchProgress("unknown")).toEqual({ done: 0, total: 0, failed: 0 });
    await submitBatch({ batchId: "b2", items: items.slice(0, 5) }, scheduler);
    expect(getBatchProgress("b2")).toEqual({ done: 5, total: 5, failed: 0 });
    await scheduler.close();
  });
});

describe("the write-up's server.ts", () => {
  let upstream: Upstream | undefined;
  let server: Server | undefined;

  afterEach(async () => {
    await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
    await upstream?.close();
  });

  /** Starts the program with `listen(3000)` turned into port 0 and its upstream calls sent to `upstream`. */
  async function startServer(target: Upstream): Promise<string> {
    const realFetch = globalThis.fetch;
    vi.stubGlobal("fetch", (input: string | URL | Request, init?: RequestInit) => {
      const url = String(input).replace("http://127.0.0.1:8000", target.url);
      return realFetch(url, init);
    });
    const listen = Server.prototype.listen as (this: Server, ...args: unknown[]) => Server;
    const listening = new Promise<Server>((resolve) => {
      vi.spyOn(Server.prototype, "listen").mockImplementation(function (this: Server, ...args: unknown[]) {
        if (args[0] !== 3000) return listen.apply(this, args);
        this.once("listening", () => resolve(this));
        return listen.call(this, 0, "127.0.0.1", args[1] as () => void);
      });
    });
    vi.spyOn(console, "log").mockImplementation(() => {});
    await import("./write-up/server.js");
    server = await listening;
    expect(console.log).toHaveBeenCalledWith("server listen on 3000");
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("answers real requests through the scheduler and never has more than 8 upstream at once", async () => {
    upstream = await startUpstream({ port: 0, parallel: 32, ttftMs: 20, tokenMs: 2, slowdown: 0 });
    const url = await startServer(upstream);
    const body = JSON.stringify({
      model: "sim",
      messages: [{ role: "user", content: "hi" }],
      max_tokens: 20,
    });
    const post = (priority: string) =>
      fetch(`${url}/chat`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-priority": priority, authorization: "Bearer k" },
        body,
      }).then(async (response) => ({ status: response.status, body: await response.json() }));
    const answers = await Promise.all([
      ...Array.from({ length: 16 }, () => post("batch")),
      ...Array.from({ length: 8 }, () => post("interactive")),
    ]);
    expect(answers).toEqual(Array.from({ length: 24 }, () => ({ status: 200, body: { ok: true } })));
    const stats = upstream.stats();
    expect(stats.served).toBe(24);
    expect(stats.maxInFlightSeen).toBeGreaterThan(1);
    expect(stats.maxInFlightSeen).toBeLessThanOrEqual(8);
  });
});
