import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { SlowFirstSequencer } from "./test/slow-first.js";

const packages = readdirSync("packages").filter((name) => existsSync(`packages/${name}/src`));

export default defineConfig({
  ssr: { resolve: { conditions: ["source"] } },
  resolve: { conditions: ["source"] },
  test: {
    // Every run also writes a JSON summary, from which .ci/run prints one plain "N passed, N failed"
    // line; with or without a CI variable in the environment.
    reporters: ["default", "json"],
    // Vitest keeps one core for itself by default, which on a 2-core CI machine runs the files one at a
    // time; most integration files wait on servers and child processes, so two at once fill both cores.
    maxWorkers: 2,
    outputFile: { json: "node_modules/.cache/vitest-results.json" },
    // The long integration files first, the many short unit files last to fill the gaps: see
    // test/slow-first.ts.
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      ...packages.map((name) => ({
        extends: true as const,
        test: {
          name,
          root: `packages/${name}`,
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          // Each unit file still gets a fresh module graph of its own, in a worker thread instead of a
          // child process: cheaper to start (decision 0075). Integration files keep their processes.
          pool: "threads" as const,
        },
      })),
      {
        extends: true as const,
        test: {
          name: "integration",
          root: "test",
          include: ["**/*.test.ts"],
          // Bun, Deno and workerd live in their own lockfile, out of the root install: installed here.
          globalSetup: [fileURLToPath(new URL("test/edge-runtimes/install.ts", import.meta.url))],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
