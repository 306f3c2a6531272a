import { startUpstream, type Upstream, type UpstreamOptions } from "@llm-scheduler/upstream-sim";
import { hasRoom, type Router } from "../src/index.js";

/** A router that always takes the first replica that may take the request: placements tests can predict. */
export const firstWithRoom: Router = {
  pick: (replicas, _key, accept) => replicas.find((r) => hasRoom(r) && (accept?.(r) ?? true))?.id ?? null,
};

/** `count` simulated replicas on free ports. */
export function startReplicaSims(count: number, options: UpstreamOptions = {}): Promise<Upstream[]> {
  return Promise.all(
    Array.from({ length: count }, () => startUpstream({ prefillMsPerToken: 0, ...options })),
  );
}

/** A chat completion body with `maxTokens` tokens to generate. */
export function chatBody(content: string, maxTokens = 4, stream = false): string {
  return JSON.stringify({
    model: "sim-model",
    messages: [{ role: "user", content }],
    max_tokens: maxTokens,
    stream,
  });
}

export const jsonHeaders = { "content-type": "application/json" };
