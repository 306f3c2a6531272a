import type { GatewayExample } from "@llm-scheduler/gateway/node";
import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";

const randomKey = (prefix: string) =>
  `${prefix}${[...crypto.getRandomValues(new Uint8Array(24))].map((b) => b.toString(16).padStart(2, "0")).join("")}`;

/**
 * `pnpm gateway` without `--config`: starts two upstream simulators' models (`chat-model` on 2 servers,
 * `embed-model` on 1) and returns the configuration that serves them on `port`, with a demo key
 * (priority `interactive`) and an admin key made up at start and printed.
 *
 * @example
 * await runGatewayCli(process.argv.slice(2), startGatewayExample);
 */
export async function startGatewayExample(port: number): Promise<GatewayExample> {
  const sims: Upstream[] = [];
  sims.push(await startUpstream({ port: 0, parallel: 8, model: "chat-model", ttftMs: 50, tokenMs: 15 }));
  sims.push(await startUpstream({ port: 0, parallel: 8, model: "chat-model", ttftMs: 50, tokenMs: 15 }));
  sims.push(await startUpstream({ port: 0, parallel: 8, model: "embed-model", ttftMs: 5, tokenMs: 1 }));
  const demoKey = randomKey("sk-demo-");
  const adminKey = randomKey("sk-admin-");
  const config = {
    listen: { host: "127.0.0.1", port },
    models: {
      "chat-model": {
        upstreams: [`${sims[0]!.url}/v1`, sims[1]!.url],
        maxConcurrency: 4,
        priorities: { interactive: { weight: 5, reserved: 2 }, batch: { weight: 1, maxWaitMs: 60_000 } },
      },
      "embed-model": { upstreams: [sims[2]!.url], maxConcurrency: 8 },
    },
    keys: [{ key: demoKey, tenant: "demo", priority: "interactive" }],
    admin: { key: adminKey },
  };
  const curl = `curl {url}/v1/chat/completions -H "authorization: Bearer ${demoKey}" -H "content-type: application/json" -d '{"model":"chat-model","messages":[{"role":"user","content":"Hi"}]}'`;
  return {
    config,
    banner: [
      "llm-scheduler-gateway: the embedded example on {url} (chat-model on 2 local simulators, embed-model on 1)",
      `  demo key:  ${demoKey}`,
      `  admin key: ${adminKey}  ({url}/metrics, {url}/dashboard)`,
      `  try: ${curl}`,
    ],
    close: async () => {
      await Promise.all(sims.map((sim) => sim.close()));
    },
  };
}
