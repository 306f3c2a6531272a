import { createRandom, mixSeed, type Random } from "@llm-scheduler/upstream-sim";
import type { ResolvedRange } from "./fields.js";
import type { ResolvedScenario } from "./scenario-resolve.js";

/** Chat requests come from users; batch requests from offline jobs. */
export type RequestKind = "chat" | "batch";

/** One request a client will make (its retries, if any, are decided while the run goes). */
export interface RequestSpec {
  /** Unique and stable for a seed: `chat-17`, `indexer-203`. */
  readonly key: string;
  readonly kind: RequestKind;
  /** When the client first sends it, ms after the start of the run. */
  readonly at: number;
  readonly priority: string;
  readonly tenant: string;
  /** Tokens of the prompt, its shared prefix included. */
  readonly promptTokens: number;
  readonly maxTokens: number;
  /** The system prompt it shares with its user's other requests (`chat.systemPrompts`), if any. */
  readonly prefix?: { readonly key: string; readonly tokens: number };
}

/** Every request of a run, in the order they are first sent. */
export interface Workload {
  readonly requests: readonly RequestSpec[];
  readonly chatCount: number;
  readonly batchCount: number;
}

const CHAT_ARRIVALS = 1;
const CHAT_SIZES = 2;
const BATCH_SIZES = 3;
const CHAT_USERS = 4;

/**
 * A whole number drawn uniformly from `range.min..range.max`, both included.
 *
 * @example
 * drawRange(createRandom(1), { min: 20, max: 200 }); // the same number for the same seed
 */
export function drawRange(random: Random, range: ResolvedRange): number {
  return range.min + Math.floor(random() * (range.max - range.min + 1));
}

/**
 * Exponential inter-arrival time of a Poisson process of `ratePerSec`, in ms.
 *
 * @example
 * exponentialMs(createRandom(1), 3); // about 333 ms on average
 */
export function exponentialMs(random: Random, ratePerSec: number): number {
  return (-Math.log(1 - random()) / ratePerSec) * 1_000;
}

/** Chat arrival times: Poisson at the chat rate, or at each step's rate of its schedule. */
function chatArrivals(scenario: ResolvedScenario): number[] {
  const { chat, durationMs, seed } = scenario;
  const times: number[] = [];
  const arrivals = createRandom(mixSeed(seed, CHAT_ARRIVALS));
  const steps = chat.rateSchedule ?? { stepMs: durationMs, ratesPerSec: [chat.ratePerSec] };
  for (let step = 0, from = 0; from < durationMs; step++, from += steps.stepMs) {
    const rate = steps.ratesPerSec[step % steps.ratesPerSec.length]!;
    const until = Math.min(durationMs, from + steps.stepMs);
    // Memoryless: starting each step afresh at its own rate is the same process.
    for (let at = from + (rate === 0 ? until : exponentialMs(arrivals, rate)); at < until; ) {
      times.push(at);
      at += exponentialMs(arrivals, rate);
    }
  }
  return times;
}

function chatRequests(scenario: ResolvedScenario): RequestSpec[] {
  const { chat, seed } = scenario;
  if (chat.ratePerSec === 0) return [];
  const sizes = createRandom(mixSeed(seed, CHAT_SIZES));
  const users = createRandom(mixSeed(seed, CHAT_USERS));
  const system = chat.systemPrompts;
  return chatArrivals(scenario).map((at, index): RequestSpec => {
    const request: RequestSpec = {
      key: `chat-${index}`,
      kind: "chat",
      at,
      priority: chat.priority,
      tenant: chat.tenant,
      promptTokens: drawRange(sizes, chat.promptTokens),
      maxTokens: drawRange(sizes, chat.maxTokens),
    };
    if (system === null) return request;
    const user = Math.floor(users() * system.count);
    const prefix = { key: `user-${user}`, tokens: system.tokens };
    return { ...request, promptTokens: request.promptTokens + system.tokens, prefix };
  });
}

function batchRequests(scenario: ResolvedScenario): RequestSpec[] {
  const requests: RequestSpec[] = [];
  scenario.batch.tenants.forEach((tenant, index) => {
    const sizes = createRandom(mixSeed(scenario.seed, BATCH_SIZES, index));
    for (let item = 0; item < tenant.items; item++) {
      requests.push({
        key: `${tenant.name}-${item}`,
        kind: "batch",
        at: tenant.startMs + (tenant.spreadMs * item) / tenant.items,
        priority: scenario.batch.priority,
        tenant: tenant.name,
        promptTokens: drawRange(sizes, tenant.promptTokens),
        maxTokens: drawRange(sizes, tenant.maxTokens),
      });
    }
  });
  return requests;
}

/**
 * Draws every request of a scenario from its seed: chat users arrive as a Poisson process over
 * `[0, durationMs)`, each batch tenant sends its items from `startMs` over `spreadMs`. Each part has its
 * own random stream, so changing the chat rate does not change the batch sizes. Same seed, same workload.
 *
 * @example
 * const { requests } = generateWorkload(resolveScenario({ durationMs: 10_000 }));
 * requests[0]; // { key: "chat-0", kind: "chat", at: 412.7, priority: "interactive", ... }
 */
export function generateWorkload(scenario: ResolvedScenario): Workload {
  const batch = batchRequests(scenario);
  const chat = chatRequests(scenario);
  // Batch first on equal times; sort is stable, so each part keeps its own order.
  const requests = [...batch, ...chat].sort((a, b) => a.at - b.at);
  return { requests, chatCount: chat.length, batchCount: batch.length };
}
