import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useRedisServer } from "./helpers.js";
import { freePort } from "./redis-server.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const redis = useRedisServer();

/** Runs examples/multi-instance against `redisUrl`; resolves with its exit code and all it printed. */
async function runExample(redisUrl: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(
    `${ROOT}node_modules/.bin/tsx`,
    ["--conditions=source", "examples/multi-instance/main.ts"],
    {
      cwd: ROOT,
      env: { ...process.env, REDIS_URL: redisUrl },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, output };
}

describe("examples/multi-instance", () => {
  it("runs two gateways on one Redis and never lets the upstream see more than the global limit", async () => {
    const { code, output } = await runExample(redis.server.url);
    expect(code, output).toBe(0);
    const inFlight = Number(/at most (\d+) in flight/.exec(output)?.[1]);
    expect(inFlight).toBeGreaterThan(0);
    expect(inFlight).toBeLessThanOrEqual(4);
    const wait = (who: string) =>
      Number(new RegExp(`${who} at gateway .: +median queue wait (\\d+) ms`).exec(output)?.[1]);
    expect(wait("Interactive")).toBeLessThan(wait("Batch"));
    // each gateway's /metrics is Prometheus text counting its own requests; Prometheus sums them
    const counted = /A counted (\d+), B counted (\d+), sum (\d+) requests/.exec(output);
    expect(counted?.slice(1).map(Number)).toEqual([40, 12, 52]);
    expect(output).toMatch(/Live dashboards: http:\S+\/dashboard and http:\S+\/dashboard/);
    expect(output).not.toMatch(/local mode|unreachable/);
  });

  it("says once per gateway that Redis is unreachable and it fell back, counts it, and exits non-zero", async () => {
    const nobody = `redis://127.0.0.1:${await freePort()}`; // nothing listens there
    const { code, output } = await runExample(nobody);
    expect(code, output).toBe(1);
    const lines = output.split("\n").filter((line) => line.trim() !== "");
    for (const name of ["A", "B"]) {
      expect(lines.filter((line) => line.startsWith(`[${name}] Redis unreachable`))).toHaveLength(1);
      expect(output).toMatch(
        new RegExp(`gateway ${name}: fell back to local mode 1 time\\(s\\), \\d+ store errors`),
      );
    }
    expect(lines.filter((line) => line.includes("was unreachable"))).toHaveLength(1);
    expect(lines.filter((line) => line.includes("ECONNREFUSED")).length).toBeLessThanOrEqual(3);
    expect(new Set(lines).size).toBe(lines.length); // no line twice
    expect(output).not.toContain("together they never exceeded");
    expect(output).not.toMatch(/median queue wait/);
  });
});
