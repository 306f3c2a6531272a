import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const GATEWAY = fileURLToPath(new URL("./gateway-process.ts", import.meta.url));

/**
 * An upstream that counts the requests in flight across every gateway. Requests whose id starts with
 * "hold" wait until the test lets them go; the others end after 15 ms.
 */
export class Upstream {
  inFlight = 0;
  peak = 0;
  readonly starts: Array<{ id: string; priority: string; at: number }> = [];
  readonly runs = new Map<string, number>();
  readonly #held: Array<() => void> = [];
  readonly server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://upstream");
    const id = url.searchParams.get("id") ?? "";
    this.inFlight++;
    this.peak = Math.max(this.peak, this.inFlight);
    this.starts.push({ id, priority: url.searchParams.get("priority") ?? "", at: performance.now() });
    this.runs.set(id, (this.runs.get(id) ?? 0) + 1);
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      this.inFlight--;
      if (!res.writableEnded) res.end(`done ${id}`);
    };
    res.on("close", finish); // the gateway went away
    if (id.startsWith("hold")) this.#held.push(finish);
    else setTimeout(finish, 15);
  });
  url = "";

  async listen(): Promise<void> {
    this.server.listen(0, "127.0.0.1");
    await once(this.server, "listening");
    const address = this.server.address();
    this.url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  }

  releaseHeld(): void {
    for (const finish of this.#held.splice(0)) finish();
  }

  startsOf(prefix: string): string[] {
    return this.starts.filter((start) => start.id.startsWith(prefix)).map((start) => start.id);
  }

  close(): void {
    this.releaseHeld();
    this.server.closeAllConnections();
    this.server.close();
  }
}

/** One gateway process (`gateway-process.ts`). */
export interface Gateway {
  readonly child: ChildProcess;
  readonly url: string;
  readonly output: string[];
}

/** Settings of a gateway process (see gateway-process.ts). */
export interface GatewaySettings {
  readonly redisUrl: string;
  readonly upstreamUrl: string;
  readonly prefix: string;
  readonly leaseMs: number;
  readonly maxConcurrency: number;
}

/** Starts a gateway process and resolves once it listens. */
export function startGateway(settings: GatewaySettings): Promise<Gateway> {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", GATEWAY], {
    cwd: ROOT,
    env: {
      ...process.env,
      REDIS_URL: settings.redisUrl,
      PREFIX: settings.prefix,
      UPSTREAM_URL: settings.upstreamUrl,
      LEASE_MS: String(settings.leaseMs),
      MAX_CONCURRENCY: String(settings.maxConcurrency),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${output.join("")}`)), 20_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      const match = /READY (\d+)/.exec(chunk.toString());
      if (match === null) return;
      clearTimeout(timer);
      resolve({ child, url: `http://127.0.0.1:${match[1]}`, output });
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}:\n${output.join("")}`));
    });
  });
}

/** Stops gateway processes (SIGTERM) and waits for them to exit. */
export async function stopGateways(gateways: readonly Gateway[]): Promise<void> {
  await Promise.all(
    gateways.map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    }),
  );
}

/** One request through a gateway; resolves with the HTTP status (0 when the gateway is gone). */
export function send(gateway: Gateway, id: string, priority: string, tenant = "t"): Promise<number> {
  return fetch(`${gateway.url}/run?id=${id}&priority=${priority}&tenant=${tenant}`).then(
    async (response) => {
      await response.text();
      return response.status;
    },
    () => 0,
  );
}
