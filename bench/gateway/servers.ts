// The servers of the gateway part: upstream simulators in their own processes, and, in the bench's
// process, the bare Hono proxy (no scheduling: the floor) and the gateway, each on @hono/node-server.
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { createGateway, type Gateway, resolveConfig } from "@llm-scheduler/gateway";
import { gatewayLogger } from "@llm-scheduler/gateway/node";
import { Hono } from "hono";
import { repoRoot, tsFlags } from "../lib/node-child.js";

export const BENCH_KEY = "sk-bench-0123456789abcdef0123456789abcdef";

/** An upstream simulator in a process of its own, so that its work does not share the gateway's thread. */
export interface SimProcess {
  readonly url: string;
  stop(): void;
}

export function startSim(args: readonly string[]): Promise<SimProcess> {
  const cli = `${repoRoot}packages/upstream-sim/src/cli.ts`;
  const child: ChildProcess = spawn(process.execPath, [...tsFlags(), cli, "--port", "0", ...args], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let text = "";
  // a part that ends early (an error, a timeout) leaves no simulator behind
  const kill = () => child.kill("SIGKILL");
  process.once("exit", kill);
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const url = /listening on (http:\/\/[\d.]+:\d+)/.exec(text)?.[1];
      if (url !== undefined) resolve({ url, stop: () => child.kill("SIGKILL") });
    });
    child.once("exit", (code) => reject(new Error(`upstream-sim exited with ${code}: ${text}`)));
  });
}

/** A server of this process on 127.0.0.1:0. */
export interface Served {
  readonly url: string;
  close(): Promise<void>;
}

async function serve(fetch: (request: Request) => Response | Promise<Response>): Promise<Served> {
  const server = createAdaptorServer({ fetch });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/**
 * The floor: a Hono app that forwards the body to the upstream and streams the answer back, with no
 * key, no scheduling, no log. `open()` counts the answers not yet ended.
 */
export async function startBareProxy(upstream: string): Promise<Served & { open(): number }> {
  let open = 0;
  const app = new Hono();
  app.post("/v1/chat/completions", async (c) => {
    const answer = await fetch(`${upstream}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: await c.req.arrayBuffer(),
      signal: c.req.raw.signal,
    });
    open++;
    const counted = answer.body!.pipeThrough(
      new TransformStream({
        flush() {
          open--;
        },
      }),
    );
    return new Response(counted, {
      status: answer.status,
      headers: { "content-type": answer.headers.get("content-type") ?? "" },
    });
  });
  return { ...(await serve(app.fetch)), open: () => open };
}

/** The gateway on one model of `upstream`, with a key, and its access log written (to /dev/null). */
export async function startGateway(
  upstream: string,
  perServer: number,
): Promise<Served & { gateway: Gateway }> {
  const config = await resolveConfig({
    models: {
      sim: {
        upstreams: [`${upstream}/v1`],
        maxConcurrency: perServer,
        priorities: { interactive: { weight: 5, maxQueue: 100_000 }, batch: { weight: 1 } },
      },
    },
    keys: [{ key: BENCH_KEY, tenant: "bench", priority: "interactive" }],
    probeIntervalMs: 3_600_000,
  });
  const { log } = gatewayLogger("info", true, createWriteStream("/dev/null"));
  const gateway = createGateway(config, { log });
  const served = await serve(gateway.fetch);
  return {
    ...served,
    gateway,
    close: async () => {
      await served.close();
      await gateway.close(1_000);
    },
  };
}
