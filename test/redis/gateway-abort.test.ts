import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { useRedisServer, waitFor } from "./helpers.js";
import { freePort } from "./redis-server.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const redis = useRedisServer({ admin: true });
/** The gateway refuses unknown keys and serves its admin paths to ADMIN_KEY only. */
const KEYS = { API_KEYS: "sk-abort-test:abort-team:interactive", ADMIN_KEY: "sk-admin-gateway-abort" };

/** An upstream that starts its answer and never ends it: it records when each request arrives and when its caller hangs up. */
async function silentUpstream(): Promise<{ server: Server; url: string; arrived: number; closed: number }> {
  const state = { arrived: 0, closed: 0 };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    state.arrived++;
    res.writeHead(200, { "content-type": "application/json" }).write("{"); // then nothing more
    req.socket.once("close", () => state.closed++);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.defineProperties(
    { server, url },
    {
      arrived: { get: () => state.arrived },
      closed: { get: () => state.closed },
    },
  ) as { server: Server; url: string; arrived: number; closed: number };
}

/** Starts examples/multi-instance/gateway.ts; resolves with the child and the port it prints. */
async function startGateway(env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  // One process (no tsx wrapper that would outlive a SIGKILL and keep the gateway running).
  const child = spawn(
    process.execPath,
    ["--conditions=source", "--import", "tsx", "examples/multi-instance/gateway.ts"],
    {
      cwd: ROOT,
      env: { ...process.env, ...KEYS, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  await waitFor(() => /READY \d+/.test(output), 30_000);
  return { child, port: Number(/READY (\d+)/.exec(output)![1]) };
}

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
  // The gateway's prefix is fixed: a killed gateway's leases would count in the next test's global
  // `running` until they lapse (10 s), so each test starts from an empty Redis.
  await redis.admin.flushall();
});

describe("examples/multi-instance/gateway.ts", () => {
  it("ends its upstream call when the client leaves, and frees the slot long before the grace", async () => {
    const upstream = await silentUpstream();
    cleanup.push(
      () =>
        new Promise<void>((resolve) => {
          upstream.server.close(() => resolve());
          upstream.server.closeAllConnections();
        }),
    );
    const { child, port } = await startGateway({
      NAME: "abort",
      UPSTREAM_URL: upstream.url,
      REDIS_URL: redis.server.url,
      MAX_CONCURRENCY: "2", // one slot for this instance (two expected)
    });
    cleanup.push(async () => {
      child.kill("SIGKILL");
      await once(child, "exit");
    });
    const post = (signal: AbortSignal) =>
      fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${KEYS.API_KEYS.split(":")[0]}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ model: "m", messages: [] }),
        signal,
      });
    const first = new AbortController();
    const firstAnswer = post(first.signal).catch(() => undefined);
    await waitFor(() => upstream.arrived === 1, 10_000);
    first.abort();
    await firstAnswer;
    await waitFor(() => upstream.closed === 1, 2_000); // the upstream call ended with the client
    const second = new AbortController();
    const secondAnswer = post(second.signal).catch(() => undefined);
    await waitFor(() => upstream.arrived === 2, 2_000); // the slot was free again, well within the grace
    second.abort();
    await secondAnswer;
    expect(upstream.closed).toBeGreaterThanOrEqual(1);
    expect(upstream.arrived).toBe(2);
  }, 60_000);

  it("answers 502 with an OpenAI-style JSON error when the upstream is down, and frees the slot", async () => {
    const { child, port } = await startGateway({
      NAME: "down",
      UPSTREAM_URL: `http://127.0.0.1:${await freePort()}`, // nothing listens there
      REDIS_URL: redis.server.url,
      MAX_CONCURRENCY: "2",
    });
    cleanup.push(async () => {
      child.kill("SIGKILL");
      await once(child, "exit");
    });
    for (let i = 0; i < 3; i++) {
      const answer = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${KEYS.API_KEYS.split(":")[0]}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ model: "m", messages: [] }),
      });
      expect(answer.status).toBe(502);
      expect(await answer.json()).toEqual({
        error: {
          message: "The upstream is unreachable",
          type: "upstream_error",
          code: "upstream_unreachable",
          param: null,
        },
      });
    }
    const running = async () =>
      (
        (await (
          await fetch(`http://127.0.0.1:${port}/metrics.json`, {
            headers: { authorization: `Bearer ${KEYS.ADMIN_KEY}` },
          })
        ).json()) as { running: number }
      ).running;
    // The release goes through Redis, so it may trail the answer by a moment: far less than the 5 s grace.
    await waitFor(async () => (await running()) === 0, 1_000, "every slot back");
    expect(await running()).toBe(0);
  }, 60_000);

  it("refuses unknown keys, and serves its admin paths to ADMIN_KEY only", async () => {
    const { child, port } = await startGateway({
      NAME: "closed",
      UPSTREAM_URL: `http://127.0.0.1:${await freePort()}`,
      REDIS_URL: redis.server.url,
    });
    cleanup.push(async () => {
      child.kill("SIGKILL");
      await once(child, "exit");
    });
    const base = `http://127.0.0.1:${port}`;
    const unknown = await fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer sk-not-issued", "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [] }),
    });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toMatchObject({ error: { code: "invalid_api_key" } });
    for (const path of ["/metrics", "/metrics.json", "/dashboard", "/status"]) {
      const refused = await fetch(`${base}${path}`, {
        headers: { authorization: `Bearer ${KEYS.API_KEYS}` },
      });
      expect(refused.status, path).toBe(401);
      await refused.text();
      const served = await fetch(`${base}${path}`, {
        headers: { authorization: `Bearer ${KEYS.ADMIN_KEY}` },
      });
      expect(served.status, path).toBe(200);
      await served.text();
    }
  }, 60_000);
});
