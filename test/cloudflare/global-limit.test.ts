import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startCountingUpstream } from "../adapters/counting-upstream.js";
import { type Cluster, startCluster } from "./miniflare.js";

/**
 * The Durable Object store in workerd (Miniflare 4): three edge Workers, each its own isolate with its
 * own module-level scheduler of limit 3 (edge-worker.ts), share one object. The counting upstream sees
 * what really goes out: never more than 3 at once, whichever edge the requests come through.
 */

const LIMIT = 3;
const LEASE_MS = 1_500;

let upstream: Awaited<ReturnType<typeof startCountingUpstream>>;
let cluster: Cluster;
/** Streams a test opened and has not closed yet: closed after each test, whatever happened. */
let open: Array<() => Promise<void>> = [];

beforeAll(async () => {
  upstream = await startCountingUpstream();
  cluster = await startCluster({ edges: 3, upstreamUrl: upstream.url, leaseMs: LEASE_MS });
});

afterEach(async () => {
  await Promise.all(open.map((close) => close()));
  open = [];
  await eventually(async () => {
    const { running, queued } = await objectCounts();
    return running === 0 && queued === 0 && upstream.open === 0;
  }, "every slot back");
});

afterAll(async () => {
  await cluster?.dispose();
  await upstream?.close();
});

async function eventually(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The shared object's own counts (a call that only reads: a renewal of nothing). */
async function objectCounts(): Promise<{ running: number; queued: number; epoch: number }> {
  const call = { op: "renew", client: "test-probe", now: Date.now() };
  const response = await fetch(`${cluster.objects}/object/shared`, {
    method: "POST",
    body: JSON.stringify(call),
  });
  const reply = (await response.json()) as { epoch: number; counts: { running: number; queued: number } };
  return { ...reply.counts, epoch: reply.epoch };
}

/** Opens a long stream through `edge` and reads its first chunk; answers how to leave (client abort). */
async function hold(edge: string): Promise<{ leave: () => Promise<void>; alive: () => Promise<boolean> }> {
  const client = new AbortController();
  const response = await fetch(`${edge}/v1/stream?holdMs=120000`, { signal: client.signal });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  await reader.read();
  let left = false;
  const leave = async () => {
    if (left) return;
    left = true;
    await reader.cancel().catch(() => {});
    client.abort();
  };
  open.push(leave);
  const alive = async () => !(await reader.read()).done;
  return { leave, alive };
}

/** A request that queues behind the holders; settles with its status once it is served. */
function later(edge: string): { served: Promise<number>; done: boolean } {
  const state = { done: false, served: Promise.resolve(0) };
  const client = new AbortController();
  state.served = fetch(`${edge}/v1/stream?holdMs=50`, { signal: client.signal }).then(async (response) => {
    await response.text();
    state.done = true;
    return response.status;
  });
  open.push(async () => {
    client.abort();
    await state.served.catch(() => {});
  });
  return state;
}

/**
 * After a client left: the middleware frees its slot at once and aborts its upstream call, but the
 * upstream may see that connection close a moment after the next request arrives (as with the Node
 * adapters, test/adapters/disconnect-limit.test.ts): one over the limit for that moment, never longer.
 */
function expectLimitHeld(): void {
  expect(upstream.maxOpen).toBeLessThanOrEqual(LIMIT + 1);
  expect(upstream.msAbove(LIMIT)).toBeLessThan(50);
}

describe("DurableObjectStore in workerd, three edge isolates", () => {
  it("serves 12 concurrent requests over three edges, never more than the limit at once upstream", async () => {
    const before = upstream.received;
    const statuses = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const response = await fetch(`${cluster.edges[i % 3]}/v1/stream?holdMs=120`);
        await response.text();
        return response.status;
      }),
    );
    expect(statuses).toEqual(Array.from({ length: 12 }, () => 200));
    expect(upstream.received - before).toBe(12);
    // One limit for all three isolates: it was reached, and never passed (per isolate, it would be 9).
    expect(upstream.maxOpen).toBe(LIMIT);
  });

  it("gives the slot of a client that leaves to a request queued on another edge", async () => {
    const holders = [];
    for (const edge of cluster.edges) holders.push(await hold(edge));
    const waiting = later(cluster.edges[0]!);
    await eventually(async () => (await objectCounts()).queued === 1, "the fourth request queued");
    expect(waiting.done).toBe(false);
    await holders[1]!.leave();
    expect(await waiting.served).toBe(200);
    expectLimitHeld();
  });

  it("keeps the limit across a restart of the object, and the running leases with it", async () => {
    const holders = [];
    for (const edge of cluster.edges) holders.push(await hold(edge));
    const received = upstream.received;
    const before = await objectCounts();
    expect(before).toMatchObject({ running: LIMIT, queued: 0 });
    const crash = await fetch(`${cluster.objects}/crash/shared`, { method: "POST" });
    expect(await crash.text()).toBe("reset");
    const after = await objectCounts();
    expect(after.epoch).toBe(before.epoch + 1); // a new life of the object, rebuilt from its storage
    expect(after.running).toBe(LIMIT);
    const waiting = [later(cluster.edges[1]!), later(cluster.edges[2]!)];
    // Longer than a lease: the holders' restored leases are renewed, and nothing new goes upstream.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 2));
    expect(upstream.received).toBe(received);
    expect(waiting.map((w) => w.done)).toEqual([false, false]);
    for (const holder of holders) expect(await holder.alive()).toBe(true);
    await holders[0]!.leave();
    await eventually(() => waiting.some((w) => w.done), "one queued request served");
    await holders[1]!.leave();
    expect(await Promise.all(waiting.map((w) => w.served))).toEqual([200, 200]);
    expectLimitHeld();
  });
});
