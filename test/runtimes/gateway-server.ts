import { createGateway, resolveConfig } from "@llm-scheduler/gateway";

/**
 * The gateway under Bun and Deno, run by `gateway.test.ts`: one model on the upstream at `UPSTREAM_URL`
 * (a simulator the test runs on Node), one key (`GATEWAY_KEY`). It prints `{"port":N}` once listening.
 */
const config = await resolveConfig(
  {
    models: { sim: { upstreams: [`${process.env.UPSTREAM_URL}/v1`], maxConcurrency: 2 } },
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the gateway interpolates it from the environment
    keys: [{ key: "${GATEWAY_KEY}", tenant: "edge", priority: "interactive" }],
    probeIntervalMs: 200,
  },
  process.env,
);
const gateway = createGateway(config);

interface Runtimes {
  Bun?: { serve(options: object): { port: number } };
  Deno?: { serve(options: object, handler: (request: Request) => Response | Promise<Response>): unknown };
}
const runtime = globalThis as Runtimes;
const announce = (port: number) => console.log(JSON.stringify({ port }));
if (runtime.Bun !== undefined) {
  announce(runtime.Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: gateway.fetch }).port);
} else if (runtime.Deno !== undefined) {
  runtime.Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: ({ port }: { port: number }) => announce(port) },
    gateway.fetch,
  );
} else {
  throw new Error("run this under bun or deno");
}
