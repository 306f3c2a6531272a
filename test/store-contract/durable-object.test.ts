import { DurableObjectStore } from "@llm-scheduler/cloudflare";
import { afterAll, beforeAll } from "vitest";
import { type Cluster, namespaceOver, startCluster } from "../cloudflare/miniflare.js";
import { runStoreContract } from "./contract.js";
import { runQuotaContract } from "./quota-contract.js";

/**
 * The store contract and the quota contract against the Durable Object store: the store runs here in
 * Node, and each of its calls reaches the real object in workerd (Miniflare) over HTTP; every store gets
 * an object of its own, and follows the driver's virtual clock (`agingClock: "scheduler"`).
 */
let cluster: Cluster;
let names = 0;

beforeAll(async () => {
  cluster = await startCluster();
});

afterAll(async () => {
  await cluster?.dispose();
});

const durableObjectStores = {
  name: "durable object",
  create: () =>
    new DurableObjectStore({
      namespace: namespaceOver(cluster.objects),
      name: `contract-${++names}`,
      agingClock: "scheduler",
    }),
};
runStoreContract(durableObjectStores);
runQuotaContract(durableObjectStores);
