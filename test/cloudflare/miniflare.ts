import type { ObjectNamespace } from "@llm-scheduler/cloudflare";
import { edgeRuntimes } from "../edge-runtimes/install.js";
import { bundleModule } from "../workers/build.js";

/** What the tests use of Miniflare, which lives in test/edge-runtimes (out of the root install). */
interface Miniflare {
  readonly ready: Promise<URL>;
  unsafeGetDirectURL(worker: string): Promise<URL>;
  dispose(): Promise<void>;
}
type MiniflareClass = new (options: Record<string, unknown>) => Miniflare;
const miniflarePath = `${edgeRuntimes}node_modules/miniflare/dist/src/index.js`;
const { Miniflare } = (await import(miniflarePath)) as { Miniflare: MiniflareClass };

const compatibilityDate = "2026-07-01";
const OBJECT_CLASS = "TestSchedulerObject";

/** workerd running the scheduler object (worker "objects") and `edges` edge Workers, each its own isolate. */
export interface Cluster {
  /** The objects Worker's URL: `/object/<name>` reaches an object, `/crash/<name>` resets it. */
  readonly objects: string;
  /** Each edge Worker's own URL. */
  readonly edges: readonly string[];
  dispose(): Promise<void>;
}

/**
 * Starts workerd (Miniflare 4) with the object Worker and `edges` edge Workers (bundled from
 * object-worker.ts and edge-worker.ts), each on its own socket; the edges share the object through a
 * Durable Object binding to the objects Worker's class, as Workers deployed apart would.
 */
export async function startCluster(options: { edges?: number; upstreamUrl?: string; leaseMs?: number } = {}) {
  const [objectScript, edgeScript] = await Promise.all([
    bundleModule(new URL("./object-worker.ts", import.meta.url)),
    options.edges ? bundleModule(new URL("./edge-worker.ts", import.meta.url)) : Promise.resolve(""),
  ]);
  const names = Array.from({ length: options.edges ?? 0 }, (_, i) => `edge-${i}`);
  const miniflare = new Miniflare({
    workers: [
      {
        name: "objects",
        modules: true,
        script: objectScript,
        compatibilityDate,
        durableObjects: { LLM_SCHEDULER: OBJECT_CLASS },
        unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }],
      },
      ...names.map((name) => ({
        name,
        modules: true,
        script: edgeScript,
        compatibilityDate,
        compatibilityFlags: ["enable_request_signal"],
        bindings: { UPSTREAM_URL: options.upstreamUrl ?? "", LEASE_MS: String(options.leaseMs ?? 30_000) },
        durableObjects: { LLM_SCHEDULER: { className: OBJECT_CLASS, scriptName: "objects" } },
        unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }],
      })),
    ],
  });
  await miniflare.ready;
  const url = async (worker: string) => String(await miniflare.unsafeGetDirectURL(worker)).replace(/\/$/, "");
  const cluster: Cluster = {
    objects: await url("objects"),
    edges: await Promise.all(names.map(url)),
    dispose: () => miniflare.dispose(),
  };
  return cluster;
}

/** A namespace for a store in Node: each call goes over HTTP to the objects Worker, which forwards it. */
export function namespaceOver(objects: string): ObjectNamespace<string> {
  return {
    idFromName: (name) => name,
    get: (name) => ({
      fetch: (_url, init) => fetch(`${objects}/object/${encodeURIComponent(name)}`, init),
    }),
  };
}
