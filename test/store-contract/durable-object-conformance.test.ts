import { DurableObjectStore } from "@llm-scheduler/cloudflare";
import { MemoryStore } from "@llm-scheduler/core/kit";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, namespaceOver, startCluster } from "../cloudflare/miniflare.js";
import { optionsOf, play, scenario } from "./conformance-scenario.js";
import { Driver } from "./driver.js";
import { playQuotas, quotaOptionsOf, quotaScenario } from "./quota-scenario.js";

/**
 * The Durable Object runs the memory store itself, so what this checks is the way between them: the
 * same random sequences as the Redis conformance test, played on the memory store and on the store in
 * Node whose calls reach the object in workerd, must give the same grants and answers in the same
 * order. Fewer runs than for Redis: each call is an HTTP round trip into workerd.
 */
let cluster: Cluster;
let names = 0;

beforeAll(async () => {
  cluster = await startCluster();
});

afterAll(async () => {
  await cluster?.dispose();
});

const objectStore = () =>
  new DurableObjectStore({
    namespace: namespaceOver(cluster.objects),
    name: `conformance-${++names}`,
    agingClock: "scheduler",
  });

describe("memory and Durable Object stores make the same choices", () => {
  it("for random sequences of enqueues, releases, removals, time and new limits", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const options = optionsOf(s);
        const memory = await play(new Driver(new MemoryStore(), options), s);
        expect(await play(new Driver(objectStore(), options), s)).toEqual(memory);
      }),
      { numRuns: 10 },
    );
  });

  it("for random sequences with tenant quotas, token estimates, usage reports and token fairness", async () => {
    await fc.assert(
      fc.asyncProperty(quotaScenario, async (s) => {
        const options = quotaOptionsOf(s);
        const memory = await playQuotas(new Driver(new MemoryStore(), options), s);
        expect(await playQuotas(new Driver(objectStore(), options), s)).toEqual(memory);
      }),
      { numRuns: 10 },
    );
  });
});
