import type { Upstream } from "@llm-scheduler/upstream-sim";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createPool, localReplicaLedger, type Pool } from "../src/index.js";
import { chatBody, jsonHeaders, startReplicaSims } from "./helpers.js";

let sims: Upstream[] = [];
let pools: Pool[] = [];

afterEach(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
  await Promise.all(sims.map((sim) => sim.close()));
  sims = [];
  pools = [];
});

const post = (pool: Pool, content: string, signal?: AbortSignal) =>
  pool.fetch("/v1/chat/completions", {
    method: "POST",
    headers: jsonHeaders,
    body: chatBody(content),
    ...(signal === undefined ? {} : { signal }),
  });

describe("pools sharing one ledger", () => {
  it("wait for a replica whose slots another pool leased, and never go over its limit", async () => {
    sims = await startReplicaSims(1, { parallel: 8, ttftMs: 10, tokenMs: 5 });
    const ledger = localReplicaLedger();
    const make = () =>
      createPool({
        replicas: [{ url: sims[0]!.url, maxConcurrency: 1 }],
        health: false,
        signals: false,
        shared: { ledger, retryMs: 5 },
      });
    pools = [make(), make()];
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        post(pools[i % 2]!, `q${i}`).then(async (r) => {
          await r.text();
          return r.status;
        }),
      ),
    );
    expect(answers).toEqual(Array.from({ length: 12 }, () => 200));
    expect(sims[0]!.stats()).toMatchObject({ maxInFlightSeen: 1, served: 12 });
    expect(await ledger.counts(["r0"])).toEqual({ r0: 0 });
  });

  it("lets a request waiting for a leased replica be cancelled, leaking nothing", async () => {
    sims = await startReplicaSims(1, { parallel: 8, ttftMs: 10, tokenMs: 5 });
    const ledger = localReplicaLedger();
    const held = await ledger.take("r0", 1); // another instance holds the only slot
    pools = [
      createPool({
        replicas: [{ url: sims[0]!.url, maxConcurrency: 1 }],
        health: false,
        signals: false,
        shared: { ledger, retryMs: 5 },
      }),
    ];
    const controller = new AbortController();
    const waiting = post(pools[0]!, "waits", controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 30));
    controller.abort(new Error("gone"));
    await expect(waiting).rejects.toThrow();
    expect(pools[0]!.metrics()).toMatchObject({ running: 0, waitingForReplica: 0 });
    expect(pools[0]!.metrics().replicas[0]!.inFlight).toBe(0);
    await ledger.release(held!);
    const after = await post(pools[0]!, "now");
    await after.text();
    expect(after.status).toBe(200);
    expect(await ledger.counts(["r0"])).toEqual({ r0: 0 });
  });

  it("go on under the replicas' own limits when the ledger fails", async () => {
    sims = await startReplicaSims(1, { parallel: 8, ttftMs: 5, tokenMs: 5 });
    const failing = {
      ...localReplicaLedger(),
      take: () => Promise.reject(new Error("unreachable")),
      ejections: () => Promise.reject(new Error("unreachable")),
    };
    pools = [
      createPool({
        replicas: [{ url: sims[0]!.url, maxConcurrency: 2 }],
        signals: false,
        shared: { ledger: failing, syncMs: 10 },
      }),
    ];
    const statuses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        post(pools[0]!, `q${i}`).then(async (r) => {
          await r.text();
          return r.status;
        }),
      ),
    );
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    expect(sims[0]!.stats().maxInFlightSeen).toBeLessThanOrEqual(2);
  });

  it("do not wait on a ledger that does not answer, and give back a lease granted too late", async () => {
    sims = await startReplicaSims(1, { parallel: 8, ttftMs: 5, tokenMs: 5 });
    const local = localReplicaLedger();
    let granted = 0;
    const slow = {
      ...local,
      take: (id: string, limit: number) =>
        new Promise<string | null>((resolve) =>
          setTimeout(() => {
            granted += 1;
            resolve(local.take(id, limit));
          }, 100),
        ),
    };
    pools = [
      createPool({
        replicas: [{ url: sims[0]!.url, maxConcurrency: 2 }],
        health: false,
        signals: false,
        shared: { ledger: slow, timeoutMs: 10 },
      }),
    ];
    const response = await post(pools[0]!, "fast");
    await response.text();
    expect(response.status).toBe(200);
    await vi.waitFor(() => expect(granted).toBe(1), { timeout: 2_000 });
    await Promise.resolve(); // the late lease's release runs right after it is granted
    expect(await local.counts(["r0"])).toEqual({ r0: 0 });
    expect(sims[0]!.stats().served).toBe(1);
  });
});
