import { Writable } from "node:stream";
import { resolveConfig } from "@llm-scheduler/gateway";
import { type RunningGateway, serveGateway } from "@llm-scheduler/gateway/node";
import { startReplicas, type Upstream, type UpstreamOptions } from "@llm-scheduler/upstream-sim";
import { waitFor } from "../redis/helpers.js";

/** Keys of 32+ characters, as a key table would hold them. */
export const CHAT_KEY = "sk-chat-0123456789abcdef0123456789abcdef";
export const ETL_KEY = "sk-etl-0123456789abcdef0123456789abcdef0";
export const ADMIN_KEY = "sk-admin-0123456789abcdef0123456789abcdef";

/** A gateway on 127.0.0.1:0 with its simulators and the JSON lines it logged. */
export interface Harness {
  readonly url: string;
  readonly running: RunningGateway;
  readonly sims: readonly Upstream[];
  /** Every log line so far, parsed. */
  readonly lines: () => Record<string, unknown>[];
  /** Every log line so far, as text. */
  readonly logText: () => string;
  close(): Promise<void>;
}

/** Starts `count` simulators, then a gateway on the configuration `configOf(sims)` makes. */
export async function startGateway(
  configOf: (sims: readonly Upstream[]) => Record<string, unknown>,
  count = 1,
  sim: UpstreamOptions = {},
): Promise<Harness> {
  const sims = count === 0 ? [] : await startReplicas(count, { port: 0, ttftMs: 5, tokenMs: 2, ...sim });
  let text = "";
  const logTo = new Writable({
    write(chunk, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  });
  const tree = { listen: { host: "127.0.0.1", port: 0 }, ...configOf(sims) };
  const running = await serveGateway(await resolveConfig(tree), { logTo });
  return {
    url: running.url,
    running,
    sims,
    logText: () => text,
    lines: () =>
      text
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    close: async () => {
      await running.close();
      await Promise.all(sims.map((s) => s.close()));
    },
  };
}

/** Two priorities, as most set-ups have them. */
export const PRIORITIES = {
  interactive: { weight: 5, reserved: 1 },
  batch: { weight: 1, maxWaitMs: 60_000 },
};

/** Waits until `check` holds, for at most `ms` (the Redis tests' poller, with the gateway tests' longer default). */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  await waitFor(check, ms);
}
