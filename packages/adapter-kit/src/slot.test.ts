import { createScheduler, ErrorCode, SchedulerError, VirtualClock } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { resolveAdapterOptions } from "./options.js";
import { acquireSlot } from "./slot.js";

interface FakeRequest {
  readonly headers: Record<string, string>;
}

const headerOf = (request: FakeRequest) => (name: string) => request.headers[name];
const neverAborts = new AbortController();

function twoLanes(clock = new VirtualClock()) {
  return createScheduler({
    clock,
    maxConcurrency: 1,
    priorities: { interactive: { weight: 5 }, standard: { weight: 2 }, batch: { weight: 1 } },
    defaultPriority: "standard",
  });
}

describe("acquireSlot", () => {
  it("grants a permit with the default mapping: default priority, default tenant, the request id", async () => {
    const scheduler = twoLanes();
    const config = resolveAdapterOptions<FakeRequest, never>({ scheduler });
    const request = { headers: { "x-request-id": "abc-1" } };
    const slot = await acquireSlot(config, request, headerOf(request), neverAborts);
    expect(slot).toMatchObject({ priority: "standard", tenant: "default", id: "abc-1", waitMs: 0 });
    expect(slot.signal).toBe(slot.permit.signal);
    expect(scheduler.metrics().running).toBe(1);
    slot.permit.release();
    expect(scheduler.metrics().running).toBe(0);
  });

  it("lets x-priority lower the priority but not raise it", async () => {
    const config = resolveAdapterOptions<FakeRequest, never>({ scheduler: twoLanes() });
    const lower = { headers: { "x-priority": "batch" } };
    const raise = { headers: { "x-priority": "interactive" } };
    const lowered = await acquireSlot(config, lower, headerOf(lower), neverAborts);
    lowered.permit.release();
    const raised = await acquireSlot(config, raise, headerOf(raise), neverAborts);
    raised.permit.release();
    expect(lowered.priority).toBe("batch");
    expect(raised.priority).toBe("standard");
  });

  it("rejects an unknown x-priority with INVALID_PRIORITY", async () => {
    const config = resolveAdapterOptions<FakeRequest, never>({ scheduler: twoLanes() });
    const request = { headers: { "x-priority": "urgent" } };
    await expect(acquireSlot(config, request, headerOf(request), neverAborts)).rejects.toMatchObject({
      code: ErrorCode.INVALID_PRIORITY,
    });
  });

  it("awaits asynchronous mapping functions and passes the request to each", async () => {
    const seen: FakeRequest[] = [];
    const config = resolveAdapterOptions<FakeRequest, never>({
      scheduler: twoLanes(),
      priority: async (request) => {
        seen.push(request);
        return "batch";
      },
      tenant: (request) => request.headers["x-tenant"] ?? "anonymous",
      id: async () => "given-id",
      cost: () => 1,
    });
    const request = { headers: { "x-tenant": "team-a", "x-priority": "interactive" } };
    const slot = await acquireSlot(config, request, headerOf(request), neverAborts);
    slot.permit.release();
    expect(seen).toEqual([request]);
    expect(slot).toMatchObject({ priority: "batch", tenant: "team-a", id: "given-id" });
  });

  it("rejects with what a mapping function throws, taking no slot", async () => {
    const scheduler = twoLanes();
    const failure = new Error("no api key");
    const config = resolveAdapterOptions<FakeRequest, never>({
      scheduler,
      tenant: () => {
        throw failure;
      },
    });
    const request = { headers: {} };
    await expect(acquireSlot(config, request, headerOf(request), neverAborts)).rejects.toBe(failure);
    expect(scheduler.metrics().started).toBe(0);
  });

  it("schedules a request with x-stainless-retry-count >= 1 ahead of its tenant's queue only after a refusal", async () => {
    const clock = new VirtualClock();
    const scheduler = twoLanes(clock);
    scheduler.update({ priorities: { standard: { queueTimeoutMs: 1_000 } } });
    const config = resolveAdapterOptions<FakeRequest, never>({ scheduler });
    const first = { headers: {} };
    const holder = await acquireSlot(config, first, headerOf(first), neverAborts);
    const order: string[] = [];
    const queue = (id: string, retry: boolean) => {
      const request = {
        headers: { "x-request-id": id, ...(retry ? { "x-stainless-retry-count": "1" } : {}) },
      };
      return Promise.resolve(acquireSlot(config, request, headerOf(request), neverAborts)).then((slot) => {
        order.push(slot.id);
        slot.permit.release();
      });
    };
    const refused = queue("refused", false).catch((error: unknown) => error);
    await Promise.resolve();
    clock.advance(1_000);
    expect(await refused).toMatchObject({ code: "QUEUE_TIMEOUT" });
    const all = Promise.all([
      queue("a", false),
      queue("b", false),
      queue("claim", true),
      queue("second-claim", true),
    ]);
    await Promise.resolve();
    holder.permit.release();
    await all;
    expect(order).toEqual(["claim", "a", "b", "second-claim"]);
  });

  it("takes a queued request out at once when its signal aborts", async () => {
    const scheduler = twoLanes();
    const config = resolveAdapterOptions<FakeRequest, never>({ scheduler });
    const request = { headers: {} };
    const holder = await acquireSlot(config, request, headerOf(request), neverAborts);
    const client = new AbortController();
    const queued = Promise.resolve(acquireSlot(config, request, headerOf(request), client));
    await Promise.resolve();
    expect(scheduler.metrics().queued).toBe(1);
    client.abort();
    await expect(queued).rejects.toBeInstanceOf(SchedulerError);
    expect(scheduler.metrics().queued).toBe(0);
    holder.permit.release();
    expect(scheduler.metrics()).toMatchObject({ running: 0, started: 1 });
  });

  it("grants synchronously, without asking for the client's signal, while a slot is free", () => {
    const scheduler = twoLanes();
    const config = resolveAdapterOptions<FakeRequest, never>({ scheduler });
    const request = { headers: {} };
    let asked = 0;
    const client = {
      get signal() {
        asked++;
        return new AbortController().signal;
      },
    };
    const slot = acquireSlot(config, request, headerOf(request), client);
    expect(slot).not.toBeInstanceOf(Promise);
    expect(asked).toBe(0);
    (slot as { permit: { release(): void } }).permit.release();
    expect(scheduler.metrics().running).toBe(0);
  });

  it("passes the run timeout on to the permit's signal", async () => {
    const clock = new VirtualClock();
    const config = resolveAdapterOptions<FakeRequest, never>({
      scheduler: twoLanes(clock),
      timeoutMs: 1_000,
    });
    const request = { headers: {} };
    const slot = await acquireSlot(config, request, headerOf(request), neverAborts);
    clock.advance(999);
    expect(slot.signal.aborted).toBe(false);
    clock.advance(1);
    expect(slot.signal.reason).toMatchObject({ code: ErrorCode.RUN_TIMEOUT });
    slot.permit.release();
  });
});
