import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "../redis/redis-server.js";
import { type ConsumerProject, installConsumer } from "./consumer.js";
import {
  type Manifest,
  pack,
  packedManifest,
  publishedPackages,
  ROOT,
  sh,
  typeErrors,
  type WorkspacePackage,
  workspacePackages,
} from "./workspace.js";

// Builds every package, packs the published ones, installs the tarballs into a fresh npm project outside
// the workspace and uses them from Node ESM, TypeScript (nodenext) and Bun. Slow by nature: one build, one
// npm install, a few child processes.
const published = publishedPackages();
const bin = (name: string): string => join(ROOT, "node_modules", ".bin", name);
const BUN = join(ROOT, "test", "edge-runtimes", "node_modules", ".bin", "bun"); // see test/edge-runtimes

let packDir: string;
let tarballs: Map<string, string>;
let manifests: Map<string, Manifest>;
let consumer: ConsumerProject;
let redis: RedisServer;

beforeAll(async () => {
  await sh("pnpm", ["run", "build"], { cwd: ROOT, timeoutMs: 240_000 });
  packDir = mkdtempSync(join(tmpdir(), "llm-scheduler-packs-"));
  tarballs = new Map();
  manifests = new Map();
  // Packed side by side, each pnpm process mostly starting up; the maps keep the packages' order.
  const packed = await Promise.all(
    published.map(async (pkg) => {
      const tarball = await pack(pkg, packDir);
      return { name: pkg.manifest.name, tarball, manifest: await packedManifest(tarball) };
    }),
  );
  for (const { name, tarball, manifest } of packed) {
    tarballs.set(name, tarball);
    manifests.set(name, manifest);
  }
  [consumer, redis] = await Promise.all([installConsumer(tarballs), startRedisServer()]);
}, 420_000);

afterAll(async () => {
  await redis?.stop();
  if (consumer !== undefined) rmSync(consumer.dir, { recursive: true, force: true });
  if (packDir !== undefined) rmSync(packDir, { recursive: true, force: true });
});

function lastJsonLine(output: string): unknown {
  const lines = output.trim().split("\n");
  return JSON.parse(lines[lines.length - 1] ?? "null");
}

/** Every import specifier a package's `exports` offers (`@llm-scheduler/core`, `.../core/kit`, ...). */
function specifiers(pkg: WorkspacePackage): string[] {
  return Object.keys(pkg.manifest.exports ?? { ".": {} }).map((path) =>
    path === "." ? pkg.manifest.name : `${pkg.manifest.name}/${path.slice(2)}`,
  );
}

describe("which packages are published", () => {
  it("publishes the library packages and keeps tools, examples, benchmarks and tests private", () => {
    expect(published.map((pkg) => pkg.manifest.name)).toEqual(
      expect.arrayContaining([
        "@llm-scheduler/adapter-kit",
        "@llm-scheduler/batches",
        "@llm-scheduler/core",
        "@llm-scheduler/dashboard",
        "@llm-scheduler/express",
        "@llm-scheduler/hono",
        "@llm-scheduler/koa",
        "@llm-scheduler/otel",
        "@llm-scheduler/prometheus",
        "@llm-scheduler/redis",
      ]),
    );
    const privateOnes = [
      ...workspacePackages("examples").filter((pkg) => pkg.manifest.name !== undefined),
      ...["demo", "simulator", "upstream-sim"].map((name) =>
        workspacePackages("packages").find((pkg) => pkg.dir.endsWith(`/${name}`)),
      ),
    ];
    for (const pkg of privateOnes) expect(pkg?.manifest.private, pkg?.dir).toBe(true);
  });
});

describe("packed manifests", () => {
  it("state the Node versions they support, as the READMEs do (Node 20+)", () => {
    for (const [name, manifest] of manifests) expect(manifest.engines?.node, name).toBe(">=20");
  });

  it("carry real versions where the workspace says workspace:", () => {
    for (const [name, manifest] of manifests) {
      expect(JSON.stringify(manifest), name).not.toContain("workspace:");
      for (const [dependency, range] of Object.entries(manifest.dependencies ?? {})) {
        const own = manifests.get(dependency);
        if (dependency.startsWith("@llm-scheduler/")) {
          expect(own, `${name} depends on ${dependency}, which is not published`).toBeDefined();
          expect(range, `${name} -> ${dependency}`).toBe(`^${own?.version}`);
        }
      }
    }
  });

  it("declare peer dependencies as ranges", () => {
    for (const [name, manifest] of manifests) {
      for (const [peer, range] of Object.entries(manifest.peerDependencies ?? {})) {
        expect(range, `${name} peer ${peer}`).toMatch(/^(\^|>=|~)\d|\|\|/);
      }
    }
  });
});

// One process per tarball and tool, each checked on its own: all of them side by side.
describe("lint of the tarballs", { timeout: 300_000 }, () => {
  it("publint finds nothing, warnings included", async () => {
    const outs = await Promise.all(
      [...tarballs.values()].map((tarball) =>
        sh(bin("publint"), ["run", tarball, "--strict"], { cwd: packDir, timeoutMs: 280_000 }),
      ),
    );
    [...tarballs.values()].forEach((tarball, n) => {
      expect(outs[n], tarball).toContain("All good!");
    });
  });

  it("are the types wrong: none for ESM consumers (node16 from ESM and bundlers)", async () => {
    const outs = await Promise.all(
      [...tarballs.values()].map((tarball) =>
        sh(bin("attw"), [tarball, "--profile", "esm-only", "--format", "json"], {
          cwd: packDir,
          timeoutMs: 280_000,
        }),
      ),
    );
    [...tarballs.values()].forEach((tarball, n) => {
      const report = JSON.parse(outs[n]!) as { analysis: { problems: unknown[] }; problems?: unknown[] };
      const problems = (report.analysis.problems as { resolutionKind?: string }[]).filter(
        (problem) => problem.resolutionKind !== "node10" && problem.resolutionKind !== "node16-cjs",
      );
      expect(problems, tarball).toEqual([]);
    });
  });
});

describe("installed with npm in a fresh project", { timeout: 180_000 }, () => {
  it("every exported entry point loads in plain Node ESM, and none shadows a global", async () => {
    const names = published.flatMap(specifiers);
    const script = `const out = {}; for (const name of ${JSON.stringify(names)}) out[name] = Object.keys(await import(name)); console.log(JSON.stringify(out));`;
    const out = await sh("node", ["--input-type=module", "-e", script], { cwd: consumer.dir });
    const exported = lastJsonLine(out) as Record<string, string[]>;
    expect(Object.keys(exported).sort()).toEqual([...names].sort());
    for (const [name, keys] of Object.entries(exported)) {
      expect(keys.length, `${name} exports nothing`).toBeGreaterThan(0);
      expect(
        keys.filter((key) => key in globalThis),
        `${name} shadows a global`,
      ).toEqual([]);
    }
    // helpers for adapter and store authors live on core/kit and redis/layout, not on the main entries
    const kit = ["IndexedHeap", "invalidOption", "HeaderNames", "MemoryStore", "serverTiming"];
    expect(exported["@llm-scheduler/core"]?.filter((key) => [...kit, "Headers"].includes(key))).toEqual([]);
    expect(exported["@llm-scheduler/core/kit"]).toEqual(expect.arrayContaining(kit));
    expect(exported["@llm-scheduler/redis"]?.filter((key) => /keys?|script/i.test(key))).toEqual([]);
  });

  it("runs a task through core and each adapter, and one through Redis, from a .mjs file", async () => {
    const out = await sh("node", ["smoke.mjs"], { cwd: consumer.dir, env: { REDIS_URL: redis.url } });
    expect(lastJsonLine(out)).toEqual({
      core: 42,
      kit: "INVALID_OPTION",
      express: "200 batch",
      koa: "200 batch",
      hono: "200 batch",
      redisLua: true,
      redisOptions: "INVALID_OPTION",
      redis: "ran through redis",
    });
  });

  it("type-checks TypeScript written with module and moduleResolution nodenext", async () => {
    expect(await typeErrors(consumer.dir)).toEqual([]);
  });

  it("loads every entry point, and runs the TypeScript file and the .mjs file, with Bun", async () => {
    const typed = await sh(BUN, ["typed.ts"], { cwd: consumer.dir });
    expect(lastJsonLine(typed)).toEqual({
      core: 42,
      hono: "200 batch",
      express: true,
      koa: 1,
      stateKey: "typed:state",
      redisOptions: "INVALID_OPTION",
    });
    const names = published.flatMap(specifiers);
    const script = `const out = {}; for (const name of ${JSON.stringify(names)}) out[name] = Object.keys(await import(name)).length; console.log(JSON.stringify(out));`;
    const loaded = lastJsonLine(await sh(BUN, ["--eval", script], { cwd: consumer.dir })) as Record<
      string,
      number
    >;
    expect(Object.keys(loaded).sort(), "every entry point loads on Bun").toEqual([...names].sort());
    for (const [name, count] of Object.entries(loaded)) expect(count, name).toBeGreaterThan(0);
    const smoke = await sh(BUN, ["smoke.mjs"], { cwd: consumer.dir, env: { REDIS_URL: redis.url } });
    expect(lastJsonLine(smoke)).toMatchObject({
      core: 42,
      express: "200 batch",
      koa: "200 batch",
      redis: "ran through redis",
    });
  });
});
