import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";

/** A throwaway `redis-server` on a free loopback port, for examples and benchmarks. */
export interface LocalRedis {
  readonly url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  return typeof address === "object" && address !== null ? address.port : 0;
}

/**
 * Starts `redis-server` (no persistence, plus `args`) on a free port of 127.0.0.1 and resolves once it
 * accepts connections. Exits the process with a clear message when `redis-server` is not installed.
 *
 * @example
 * const redis = await startLocalRedis();
 * const store = new RedisStore({ url: redis.url });
 * // ...
 * await redis.stop();
 */
export async function startLocalRedis(args: readonly string[] = []): Promise<LocalRedis> {
  const port = await freePort();
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", ...args],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  child.once("error", () => {
    console.error("redis-server is not on PATH: apt-get install -y redis-server (or set REDIS_URL).");
    process.exit(1);
  });
  let output = "";
  for await (const chunk of child.stdout!) {
    output += String(chunk);
    if (output.includes("Ready to accept connections")) break;
  }
  child.stdout!.resume();
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}
