import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { root } from "./spawn.js";

const run = promisify(execFile);

describe("examples/core-quickstart", () => {
  it("runs and shows chat waits far lower through the scheduler than through FIFO", async () => {
    const { stdout } = await run(
      `${root}node_modules/.bin/tsx`,
      ["--conditions=source", "examples/core-quickstart/main.ts"],
      {
        cwd: root,
        timeout: 60_000,
      },
    );
    const p95 = (name: string) => Number(new RegExp(`${name}\\s+\\d+ ms\\s+(\\d+) ms`).exec(stdout)?.[1]);
    expect(p95("FIFO")).toBeGreaterThan(200);
    expect(p95("llm-scheduler")).toBeLessThan(p95("FIFO") / 5);
  }, 60_000);
});
