import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sleep, useRedisServer, waitFor, waitForEmpty } from "./helpers.js";
import { type Gateway, send, startGateway, stopGateways, Upstream } from "./processes.js";
import { startTcpGate, type TcpGate } from "./tcp-gate.js";

/**
 * Three gateway processes share one Redis, each reaching it through a TCP gate of its own so that the
 * test decides when each one reconnects after Redis restarts empty. The upstream in this process counts
 * the calls in flight across all of them: never more than the global limit.
 */
const MAX = 8;
const LEASE_MS = 6_000;
const PREFIX = "restart:";
/** How many calls each gateway holds when Redis goes away: 7 together, one slot short of the limit. */
const HELD = [3, 2, 2];
/** When each gateway may reach Redis again, after the restart: 0.1 to 0.7 s apart. */
const REOPEN_MS = [100, 400, 700];

const redis = useRedisServer({ admin: true });
const upstream = new Upstream();
let gates: TcpGate[] = [];
let gateways: Gateway[] = [];

beforeAll(async () => {
  await upstream.listen();
  gates = await Promise.all(HELD.map(() => startTcpGate(redis.server.port)));
  gateways = await Promise.all(
    gates.map((gate) =>
      startGateway({
        redisUrl: gate.url,
        upstreamUrl: upstream.url,
        prefix: PREFIX,
        leaseMs: LEASE_MS,
        maxConcurrency: MAX,
      }),
    ),
  );
}, 60_000);

afterAll(async () => {
  upstream.releaseHeld();
  await stopGateways(gateways);
  upstream.close();
  await Promise.all(gates.map((gate) => gate.close()));
});

async function storeStatus(gateway: Gateway): Promise<string> {
  const metrics = (await (await fetch(`${gateway.url}/metrics.json`)).json()) as { store: string };
  return metrics.store;
}

describe("Redis restarts empty while tasks run on three gateways", () => {
  it("grants nothing until every gateway's running tasks are counted again: the limit holds", async () => {
    const held = gateways.flatMap((gateway, g) =>
      Array.from({ length: HELD[g]! }, (_, i) => send(gateway, `hold-${g}-${i}`, "batch")),
    );
    await waitFor(() => upstream.inFlight === MAX - 1, 10_000, "all but one slot held");
    await sleep(1_200); // a heartbeat of each gateway has seen the others live

    for (const gate of gates) gate.shut();
    await redis.server.kill(); // SIGKILL: nothing saved
    await redis.server.restart(); // a new, empty redis-server on the same port
    const restartedAt = performance.now();

    // Each gateway reaches Redis again at its own moment and at once asks for 4 more slots.
    let lastOpenedAt = 0;
    const after = await Promise.all(
      gateways.map(async (gateway, g) => {
        await sleep(REOPEN_MS[g]!);
        gates[g]!.open();
        lastOpenedAt = Math.max(lastOpenedAt, performance.now());
        await waitFor(async () => (await storeStatus(gateway)) === "connected", 10_000, `gateway ${g} back`);
        return Array.from({ length: 4 }, (_, i) => send(gateway, `after-${g}-${i}`, "interactive"));
      }),
    );
    // Once every gateway has checked in, the one free slot serves the new calls one after another,
    // long before the recovery period (leaseMs) would have ended by itself.
    expect(await Promise.all(after.flat())).toEqual(Array(12).fill(200));
    const afterStarts = upstream.starts.filter((start) => start.id.startsWith("after-")).map((s) => s.at);
    const peakWhileHeld = upstream.peak;
    upstream.releaseHeld();

    expect(await Promise.all(held)).toEqual(HELD.flatMap((n) => Array(n).fill(200)));
    expect(afterStarts).toHaveLength(12);
    expect(Math.min(...afterStarts)).toBeGreaterThan(lastOpenedAt); // not before the last one was back
    expect(Math.min(...afterStarts) - restartedAt).toBeLessThan(LEASE_MS - 2_000);
    expect(peakWhileHeld).toBe(MAX); // the held calls and one new call at a time
    expect(upstream.peak).toBeLessThanOrEqual(MAX);
    await waitForEmpty(redis.admin, PREFIX, 5_000);
  });
});
