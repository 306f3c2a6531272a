import { DurableObjectStore, type ObjectNamespace } from "@llm-scheduler/cloudflare";
import { createScheduler } from "@llm-scheduler/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, namespaceOver, startCluster } from "./miniflare.js";

/**
 * Leases and cost, against the real object in workerd: schedulers run here in Node, each call reaching
 * the object over HTTP through the objects Worker. An isolate that dies is played by raw calls that take
 * a slot and never renew it.
 */

let cluster: Cluster;
let names = 0;

beforeAll(async () => {
  cluster = await startCluster();
});

afterAll(async () => {
  await cluster?.dispose();
});

/** Counts the calls a store makes, by operation. */
function counted(namespace: ObjectNamespace<string>) {
  const calls: string[] = [];
  const counting: ObjectNamespace<string> = {
    idFromName: (name) => namespace.idFromName(name),
    get: (id) => ({
      fetch: (url, init) => {
        calls.push((JSON.parse(String(init.body)) as { op: string }).op);
        return namespace.get(id).fetch(url, init);
      },
    }),
  };
  return { calls, namespace: counting };
}

async function post(name: string, call: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(`${cluster.objects}/object/${name}`, {
    method: "POST",
    body: JSON.stringify(call),
  });
  return (await response.json()) as Record<string, unknown>;
}

describe("DurableObjectStore leases, cost and bad calls", () => {
  it("gives the slot of an isolate that stopped renewing to a waiting task, by the object's alarm", async () => {
    const name = `lapse-${++names}`;
    const store = new DurableObjectStore({
      namespace: namespaceOver(cluster.objects),
      name,
      leaseMs: 600,
      waitMs: 30_000,
    });
    const scheduler = createScheduler({ maxConcurrency: 1, store });
    // Configure the object as the scheduler would, then take its one slot as a dying isolate: no renewal.
    const holding = scheduler.run(async () => "configured");
    expect(await holding).toBe("configured");
    const ticket = {
      key: "dead:1",
      priority: "interactive",
      tenant: "default",
      cost: 1,
      retry: false,
      enqueuedAt: 0,
    };
    const taken = await post(name, { op: "enqueue", client: "dead", now: Date.now(), ticket });
    expect(taken).toMatchObject({ result: "granted" });
    const began = Date.now();
    // Its wait is one long call (waitMs 30 s): only the object's own alarm can grant it in time.
    expect(await scheduler.run(async () => "served after the lapse")).toBe("served after the lapse");
    expect(Date.now() - began).toBeGreaterThanOrEqual(500);
    expect(Date.now() - began).toBeLessThan(10_000);
    await scheduler.close();
  });

  it("stops a running task whose renewals stop reaching the object, before the object may lapse its lease", async () => {
    const over = namespaceOver(cluster.objects);
    let cut = false;
    // Renewals are lost from `cut` on (a partition that lets other calls through).
    const namespace: ObjectNamespace<string> = {
      idFromName: (name) => name,
      get: (id) => ({
        fetch: (url, init) => {
          const call = JSON.parse(String(init.body)) as { op: string; renew?: unknown };
          if (cut && call.op === "renew") return Promise.reject(new Error("partitioned"));
          if (cut) delete call.renew;
          return over.get(id).fetch(url, { ...init, body: JSON.stringify(call) });
        },
      }),
    };
    const leaseMs = 3_000;
    const store = new DurableObjectStore({ namespace, name: `partition-${++names}`, leaseMs });
    const scheduler = createScheduler({ maxConcurrency: 1, store });
    let started = () => {};
    const begun = new Promise<void>((resolve) => (started = resolve));
    const stopped = scheduler
      .run(
        ({ signal }) =>
          new Promise((_, reject) => {
            started();
            signal.addEventListener("abort", () => reject(signal.reason));
          }),
      )
      .catch((error: unknown) => ({ error, at: Date.now() }));
    await begun;
    cut = true;
    const cutAt = Date.now();
    const { error, at } = (await stopped) as { error: { code: string; message: string }; at: number };
    expect(error.code).toBe("STORE_UNAVAILABLE");
    expect(error.message).toMatch(/No renewal of the task's slot reached the scheduler object/);
    // The object holds the lease at least leaseMs from the last renewal it got, sent before the cut.
    expect(at - cutAt).toBeLessThan(leaseMs);
    await scheduler.close();
  });

  it("costs two calls for a task granted at once, and one more per waitMs of waiting", async () => {
    const { calls, namespace } = counted(namespaceOver(cluster.objects));
    const store = new DurableObjectStore({ namespace, name: `cost-${++names}`, leaseMs: 60_000 });
    const scheduler = createScheduler({ maxConcurrency: 1, store });
    await scheduler.run(async () => {});
    expect(calls).toEqual(["enqueue", "release"]);
    calls.length = 0;
    let release = () => {};
    const holder = scheduler.run(() => new Promise<void>((resolve) => (release = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const waiter = scheduler.run(async () => {});
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    await Promise.all([holder, waiter]);
    // The holder: enqueue, release; the waiter: enqueue, one wait (answered by the grant), release.
    expect([...calls].sort()).toEqual(["enqueue", "enqueue", "release", "release", "wait"]);
    await scheduler.close();
  });

  it("answers a malformed call with a 400 and an OpenAI-style error body, and keeps serving", async () => {
    const name = `bad-${++names}`;
    for (const body of [
      "not json",
      "[]",
      '{"op":"enqueue","client":"x","now":1}',
      '{"op":"drop","client":"x","now":1}',
      '{"op":"renew","client":"x","now":1,"config":{"leaseMs":1}}',
    ]) {
      const response = await fetch(`${cluster.objects}/object/${name}`, { method: "POST", body });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        error: { type: "invalid_request_error", code: "INVALID_REQUEST" },
      });
    }
    expect((await fetch(`${cluster.objects}/object/${name}`)).status).toBe(405);
    const store = new DurableObjectStore({ namespace: namespaceOver(cluster.objects), name });
    const scheduler = createScheduler({ maxConcurrency: 1, store });
    expect(await scheduler.run(async () => "still serving")).toBe("still serving");
    await scheduler.close();
  });
});
