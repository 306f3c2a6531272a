// The scenarios of `pnpm bench pools`: simulated replicas in virtual time (see packages/simulator).
import type { Routing } from "@llm-scheduler/pool";
import type { Scenario } from "@llm-scheduler/simulator";

/** Chat only, served as soon as possible: the client never gives up, so TTFT shows all the waiting. */
const PATIENT_CHAT = { timeoutMs: "Infinity", retries: 0 } as const;
const DEEP_QUEUES = {
  priorities: {
    interactive: { weight: 5, reserved: 1, queueTimeoutMs: 3_600_000, maxQueue: 1_000_000 },
    batch: { weight: 1, queueTimeoutMs: 3_600_000, maxQueue: 1_000_000, maxWaitMs: 60_000 },
  },
};
/** An engine like vLLM on one GPU: 16 sequences, 0.25 ms of prefill per prompt token, 20 ms a token. */
const ENGINE = { parallel: 16, ttftMs: 30, prefillMsPerToken: 0.25, tokenMs: 20, slowdown: 1 };
/**
 * Each replica may hold half as many requests again as its engine runs, while the scheduler lets in no
 * more than all the engines run: a router then has a choice even when every sequence is busy.
 */
const HEADROOM = { limit: 24 };
/** `prefix`'s load bound, matched to the headroom: 1.5 x the mean in flight is at most 24. */
export const LOAD_FACTOR = 1.5;

/**
 * The shape KubeAI and llm-d published for prefix-aware routing: many users, each with a long system
 * prompt of its own (here 256 users, 4,000 tokens each), short questions and answers, 8 replicas whose
 * prefix caches each hold about 40 such prompts, under heavy load (close to what the replicas serve
 * when their caches hit, well over what they serve when they miss).
 */
export function sharedPrefixScenario(
  routing: Routing,
  quick: boolean,
  loadFactor = LOAD_FACTOR,
  replica: { readonly limit: number } = HEADROOM,
): Scenario {
  return {
    name: `shared prefix, ${routing}`,
    seed: 7,
    durationMs: quick ? 20_000 : 180_000,
    upstream: ENGINE,
    pool: { routing, loadFactor, cacheTokens: 160_000, replicas: Array.from({ length: 8 }, () => replica) },
    gateway: { maxConcurrency: 8 * ENGINE.parallel },
    scheduler: DEEP_QUEUES,
    chat: {
      ...PATIENT_CHAT,
      ratePerSec: 46,
      promptTokens: { min: 50, max: 150 },
      maxTokens: { min: 20, max: 80 },
      systemPrompts: { count: 256, tokens: 4_000 },
    },
  };
}

/**
 * Per-replica adaptive limits fed by the engines' queues (the pool's `signals.limit` defaults), each
 * starting at the headroom's 24 and moving within 4..24. The simulated engines slow smoothly with their
 * batch, so core's latency guard would hold every limit at a few sequences (decision 0036); here the
 * limits move on engine signals (and overload) only.
 */
export const ENGINE_FED_LIMITS = {
  min: 4,
  max: HEADROOM.limit,
  scrapeMs: 1_000,
  engine: {},
  tunables: { latencyTolerance: Number.POSITIVE_INFINITY },
} as const;

/**
 * The same replicas, one at half speed, under load close to what they serve together. `slowLimit`: the
 * slow replica's limit (24 like the others, or set by hand); `adaptive`: adaptive limits for every replica;
 * `speed`: the pool's speed estimates (`false`: off; decision 0059).
 */
export function halfSpeedScenario(
  routing: Routing,
  quick: boolean,
  slowLimit = HEADROOM.limit,
  adaptive?: typeof ENGINE_FED_LIMITS,
  speed?: false,
): Scenario {
  const base = sharedPrefixScenario(routing, quick);
  const slow = { limit: slowLimit, id: "slow", speed: 0.5 };
  const replicas = [...Array.from({ length: 7 }, () => HEADROOM), slow];
  return {
    ...base,
    name: `one replica at half speed, ${routing}`,
    pool: {
      ...base.pool!,
      replicas,
      ...(adaptive === undefined ? {} : { adaptive }),
      ...(speed === undefined ? {} : { speed }),
    },
    chat: { ...base.chat, ratePerSec: 40 },
  };
}

/**
 * Chat beside two batch floods, behind one server of 32 sequences or behind 4 replicas of 8 (the same
 * capacity). By default each sequence runs at the same speed however many are busy (`slowdown: 0`) and
 * nothing is cached, so the only difference between the two is where each request runs; with a
 * `slowdown`, a replica's step time also depends on how the requests are spread.
 */
export function whoGoesNextScenario(pool: Routing | undefined, quick: boolean, slowdown = 0): Scenario {
  return {
    name: pool === undefined ? "one server, 32 sequences" : `4 replicas of 8, ${pool}`,
    seed: 11,
    durationMs: quick ? 20_000 : 240_000,
    upstream: { ...ENGINE, parallel: pool === undefined ? 32 : 8, slowdown },
    ...(pool === undefined ? {} : { pool: { routing: pool, replicas: 4 } }),
    chat: { ratePerSec: 4, promptTokens: { min: 20, max: 200 }, maxTokens: { min: 16, max: 64 } },
    batch: {
      tenants: [
        { name: "etl", items: quick ? 100 : 1_000, promptTokens: { min: 200, max: 800 } },
        { name: "indexer", items: quick ? 50 : 500, startMs: 10_000, promptTokens: { min: 200, max: 800 } },
      ],
    },
  };
}
