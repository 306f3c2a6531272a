import { FaultRules } from "./fault-rules.js";
import { FaultPicker } from "./faults.js";
import { createLatencyModel, type LatencyModel } from "./latency-model.js";
import type { ResolvedUpstreamOptions } from "./options.js";
import { PrefixCache } from "./prefix-cache.js";
import { createRandom, mixSeed } from "./prng.js";
import { Slots } from "./slots.js";
import { StatsRecorder } from "./stats.js";

/** The state one simulated server shares between its requests. */
export interface SimContext {
  readonly options: ResolvedUpstreamOptions;
  readonly latency: LatencyModel;
  readonly slots: Slots;
  readonly stats: StatsRecorder;
  readonly faults: FaultPicker;
  /** Targeted faults: the rules, and `x-sim-fault` limited by `x-sim-fault-times`. */
  readonly rules: FaultRules;
  /** Signals of the requests being handled, aborted all at once by `close()`. */
  readonly requests: Set<AbortController>;
  /** The prefix cache (KV blocks, LRU). */
  readonly cache: PrefixCache;
  /** Multiplies every delay of requests arriving from now on: 1 at full speed, 2 at half speed. */
  speedFactor: number;
  /** Numbers the completion requests 1, 2, 3… in arrival order. */
  nextRequestNumber(): number;
}

/**
 * Builds the shared state of one server from resolved options.
 *
 * @example
 * const context = createContext(resolveUpstreamOptions({ parallel: 2 }));
 */
export function createContext(options: ResolvedUpstreamOptions): SimContext {
  const slots = new Slots(options.parallel);
  let requestNumber = 0;
  return {
    options,
    latency: createLatencyModel(options),
    slots,
    stats: new StatsRecorder(() => ({ inFlight: slots.active, queued: slots.waiting })),
    faults: new FaultPicker(options.faults, createRandom(mixSeed(options.seed, 0x0fa17))),
    rules: new FaultRules(options.faultRules),
    requests: new Set(),
    cache: new PrefixCache(options.prefixCacheBlocks, options.blockTokens),
    speedFactor: 1,
    nextRequestNumber: () => {
      requestNumber += 1;
      return requestNumber;
    },
  };
}
