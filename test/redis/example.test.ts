import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useRedisServer } from "./helpers.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const redis = useRedisServer();

describe("examples/multi-instance", () => {
  it("runs two gateways on one Redis and never lets the upstream see more than the global limit", async () => {
    const child = spawn(
      `${ROOT}node_modules/.bin/tsx`,
      ["--conditions=source", "examples/multi-instance/main.ts"],
      {
        cwd: ROOT,
        env: { ...process.env, REDIS_URL: redis.server.url },
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
    expect(code, output).toBe(0);
    const inFlight = Number(/at most (\d+) in flight/.exec(output)?.[1]);
    expect(inFlight).toBeGreaterThan(0);
    expect(inFlight).toBeLessThanOrEqual(4);
    const wait = (who: string) =>
      Number(new RegExp(`${who} at gateway .: +median queue wait (\\d+) ms`).exec(output)?.[1]);
    expect(wait("Interactive")).toBeLessThan(wait("Batch"));
  });
});
