import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisState, useRedisServer, waitFor, waitForEmpty } from "./helpers.js";
import { type Gateway, send, startGateway, stopGateways, Upstream } from "./processes.js";

/**
 * Three gateway processes share one Redis; an upstream in this process counts the requests in flight
 * across all of them. Each gateway allows 4 at once (the global limit); leases last 3 s.
 *
 * A gateway that cannot show a renewal of its leases within `leaseMs` minus a guard stops its tasks
 * (fail-closed, by design). With 1 s leases (a heartbeat every 333 ms, the watchdog at 800 ms) a gateway
 * process that gets no CPU for ~470 ms does so; on a loaded 2-core machine freshly spawned gateways
 * stalled for up to 590 ms and saw a heartbeat take 563 ms, and 7 of 27 runs failed with 503s.
 * 3 s leases (a heartbeat every second, the watchdog at 2.4 s) ride out a stall of ~1.4 s.
 */
const MAX = 4;
const LEASE_MS = 3_000;
/** The gateways' heartbeat: `min(pollMs, leaseMs / 3)`, how soon the others notice a lease lapsed. */
const HEARTBEAT_MS = LEASE_MS / 3;
/** Long enough for leases to lapse and the others to notice. */
const LAPSE_WAIT_MS = LEASE_MS + HEARTBEAT_MS + 2_000;
const PREFIX = "multiprocess:";

const redis = useRedisServer({ admin: true });
const upstream = new Upstream();
let gateways: Gateway[] = [];

// Registered after useRedisServer: this runs once Redis is up, and its afterAll before Redis stops.
beforeAll(async () => {
  await upstream.listen();
  const settings = {
    redisUrl: redis.server.url,
    upstreamUrl: upstream.url,
    prefix: PREFIX,
    leaseMs: LEASE_MS,
    maxConcurrency: MAX,
  };
  gateways = await Promise.all([0, 1, 2].map(() => startGateway(settings)));
}, 60_000);

afterAll(async () => {
  upstream.releaseHeld();
  await stopGateways(gateways);
  upstream.close();
});

const queued = async (): Promise<number> => (await redisState(redis.admin, PREFIX)).queued;

describe("three gateway processes, one Redis", () => {
  it("never send the upstream more than the global limit", async () => {
    const requests = gateways.flatMap((gateway, g) =>
      Array.from({ length: 20 }, (_, i) =>
        send(gateway, `limit-${g}-${i}`, i % 3 === 0 ? "interactive" : "batch", `tenant${i % 4}`),
      ),
    );
    const statuses = await Promise.all(requests);
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(upstream.peak).toBe(MAX);
    const limitRuns = [...upstream.runs].filter(([id]) => id.startsWith("limit-"));
    expect(limitRuns).toHaveLength(60);
    expect(limitRuns.every(([, runs]) => runs === 1)).toBe(true);
  });

  it("start interactive requests of one instance before batch requests queued earlier on the others", async () => {
    const [g0, g1, g2] = gateways as [Gateway, Gateway, Gateway];
    const holders = Array.from({ length: MAX }, (_, i) => send(g0, `hold-order-${i}`, "batch"));
    await waitFor(() => upstream.inFlight === MAX, 5_000, "slots held");
    const batch = Array.from({ length: 8 }, (_, i) => send(i % 2 === 0 ? g1 : g2, `order-b${i}`, "batch"));
    await waitFor(async () => (await queued()) === 8, 5_000, "batch queued");
    const interactive = Array.from({ length: 4 }, (_, i) => send(g0, `order-i${i}`, "interactive"));
    await waitFor(async () => (await queued()) === 12, 5_000, "interactive queued");
    upstream.releaseHeld();
    const statuses = await Promise.all([...holders, ...batch, ...interactive]);
    expect(statuses.every((status) => status === 200)).toBe(true);
    const order = upstream.startsOf("order-");
    const lastInteractive = Math.max(...order.map((id, i) => (id.includes("-i") ? i : -1)));
    expect(lastInteractive).toBeLessThan(7); // FIFO would start all 8 batch requests first
    expect(upstream.peak).toBe(MAX);
  });

  it("give a SIGKILLed instance's slots back within leaseMs; the survivors' requests all run exactly once", async () => {
    const [g0, g1, g2] = gateways as [Gateway, Gateway, Gateway];
    const holders = Array.from({ length: MAX }, (_, i) => send(g2, `hold-kill-${i}`, "batch"));
    await waitFor(() => upstream.inFlight === MAX, 5_000, "slots held by the doomed gateway");
    const doomed = [send(g2, "doomed-0", "batch"), send(g2, "doomed-1", "interactive")];
    const survivors = Array.from({ length: 6 }, (_, i) =>
      send(i % 2 === 0 ? g0 : g1, `survivor-${i}`, "batch"),
    );
    await waitFor(async () => (await queued()) === 8, 5_000, "requests queued");

    g2.child.kill("SIGKILL");
    const killedAt = performance.now();
    const statuses = await Promise.all(survivors);
    const firstStart = upstream.starts.find((start) => start.id.startsWith("survivor-"))!.at;

    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    expect(firstStart - killedAt).toBeLessThan(LEASE_MS + HEARTBEAT_MS + 800);
    expect(upstream.startsOf("survivor-").sort()).toEqual(
      Array.from({ length: 6 }, (_, i) => `survivor-${i}`),
    );
    expect(upstream.startsOf("doomed-")).toEqual([]);
    expect(await Promise.all([...holders, ...doomed])).toEqual([0, 0, 0, 0, 0, 0]);
    expect(upstream.peak).toBe(MAX);
    await waitForEmpty(redis.admin, PREFIX, 3_000);
  });

  it("cancel a stalled gateway's upstream calls (SIGSTOP beyond leaseMs) as soon as it resumes", async () => {
    const [g0, g1] = gateways as [Gateway, Gateway];
    const stalled = Array.from({ length: MAX }, (_, i) => send(g0, `hold-stall-${i}`, "batch"));
    await waitFor(() => upstream.inFlight === MAX, 5_000, "slots held by the gateway that will stall");
    const after = Array.from({ length: MAX }, (_, i) => send(g1, `hold-after-${i}`, "batch"));
    await waitFor(async () => (await queued()) === MAX, 5_000, "requests queued on another gateway");

    process.kill(g0.child.pid!, "SIGSTOP");
    const stoppedAt = performance.now();
    // Its leases lapse and the other gateway gets the slots: the upstream now sees twice the limit.
    await waitFor(() => upstream.inFlight === 2 * MAX, LAPSE_WAIT_MS, "the lapsed slots granted again");
    const overAt = performance.now();
    process.kill(g0.child.pid!, "SIGCONT");
    const resumedAt = performance.now();
    await waitFor(() => upstream.inFlight === MAX, 5_000, "the stalled gateway's calls cancelled");
    const backAt = performance.now();

    expect(overAt - stoppedAt).toBeGreaterThan(LEASE_MS / 2); // not before the leases lapsed
    expect(backAt - resumedAt).toBeLessThan(1_000);
    expect(await Promise.all(stalled)).toEqual([503, 503, 503, 503]); // STORE_UNAVAILABLE
    const metrics = (await (await fetch(`${g0.url}/metrics.json`)).json()) as {
      idle: boolean;
      failed: number;
      tenants: unknown[];
    };
    expect(metrics).toMatchObject({ idle: true, tenants: [] });
    expect(metrics.failed).toBeGreaterThanOrEqual(MAX);
    upstream.releaseHeld();
    expect(await Promise.all(after)).toEqual([200, 200, 200, 200]);
    await waitForEmpty(redis.admin, PREFIX, 3_000);
  });
});
