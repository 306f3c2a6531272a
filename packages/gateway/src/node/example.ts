import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";

/** The embedded example: two models on local simulators, a demo key and an admin key made up at start. */
export interface Example {
  /** The configuration, as a file would hold it. */
  readonly config: Record<string, unknown>;
  readonly demoKey: string;
  readonly adminKey: string;
  close(): Promise<void>;
}

const randomKey = (prefix: string) =>
  `${prefix}${[...crypto.getRandomValues(new Uint8Array(24))].map((b) => b.toString(16).padStart(2, "0")).join("")}`;

/**
 * Starts two upstream simulators (`chat-model` with 2 servers, `embed-model` with 1) and returns the
 * configuration that serves them on `port`, with one demo key (priority `interactive`) and an admin key.
 *
 * @example
 * const example = await startExample(8080);
 */
export async function startExample(port: number): Promise<Example> {
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
  return {
    config,
    demoKey,
    adminKey,
    close: async () => {
      await Promise.all(sims.map((sim) => sim.close()));
    },
  };
}
