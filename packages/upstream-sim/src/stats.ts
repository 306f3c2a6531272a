import { type FaultKind, faultKinds } from "./fault-kinds.js";

/** A plain snapshot of what the simulated server has done; counters cover the completion endpoints. */
export interface UpstreamStats {
  /** Requests holding a sequence now (hung ones included). */
  readonly inFlight: number;
  /** Requests waiting inside the server for a sequence now. */
  readonly queued: number;
  /** Most requests ever holding a sequence at once; never above `parallel`. */
  readonly maxInFlightSeen: number;
  /** Most requests ever waiting at once. */
  readonly maxQueuedSeen: number;
  /** Completion requests received. */
  readonly received: number;
  /** Completion requests answered in full with 200. */
  readonly served: number;
  /** Requests whose client went away before the answer was complete. */
  readonly cancelled: number;
  /** Complete answers by HTTP status, e.g. `{ "200": 10, "429": 2 }`; cancelled requests are not in it. */
  readonly byStatus: Readonly<Record<string, number>>;
  /** Faults injected, by kind. */
  readonly faults: Readonly<Record<FaultKind, number>>;
  /** Prompt tokens of the requests served. */
  readonly promptTokens: number;
  /** Tokens generated for the requests served. */
  readonly completionTokens: number;
}

function noFaults(): Record<FaultKind, number> {
  return Object.fromEntries(faultKinds.map((kind) => [kind, 0])) as Record<FaultKind, number>;
}

/**
 * Counts what the server does; `snapshot()` returns a plain {@link UpstreamStats}.
 *
 * @example
 * const recorder = new StatsRecorder(() => ({ inFlight: slots.active, queued: slots.waiting }));
 * recorder.status(200);
 */
export class StatsRecorder {
  readonly #load: () => { inFlight: number; queued: number };
  #maxInFlight = 0;
  #maxQueued = 0;
  #received = 0;
  #served = 0;
  #cancelled = 0;
  #byStatus: Record<string, number> = {};
  #faults = noFaults();
  #promptTokens = 0;
  #completionTokens = 0;

  constructor(load: () => { inFlight: number; queued: number }) {
    this.#load = load;
  }

  /** Records the current load into the high-water marks. */
  observe(): void {
    const { inFlight, queued } = this.#load();
    this.#maxInFlight = Math.max(this.#maxInFlight, inFlight);
    this.#maxQueued = Math.max(this.#maxQueued, queued);
  }

  received(): void {
    this.#received += 1;
  }

  status(code: number): void {
    this.#byStatus[code] = (this.#byStatus[code] ?? 0) + 1;
  }

  fault(kind: FaultKind): void {
    this.#faults[kind] += 1;
  }

  served(promptTokens: number, completionTokens: number): void {
    this.#served += 1;
    this.#promptTokens += promptTokens;
    this.#completionTokens += completionTokens;
  }

  cancelled(): void {
    this.#cancelled += 1;
  }

  /** Zeroes every counter and high-water mark (the current load stays). */
  reset(): void {
    this.#maxInFlight = 0;
    this.#maxQueued = 0;
    this.#received = 0;
    this.#served = 0;
    this.#cancelled = 0;
    this.#byStatus = {};
    this.#faults = noFaults();
    this.#promptTokens = 0;
    this.#completionTokens = 0;
    this.observe();
  }

  snapshot(): UpstreamStats {
    const { inFlight, queued } = this.#load();
    return {
      inFlight,
      queued,
      maxInFlightSeen: this.#maxInFlight,
      maxQueuedSeen: this.#maxQueued,
      received: this.#received,
      served: this.#served,
      cancelled: this.#cancelled,
      byStatus: { ...this.#byStatus },
      faults: { ...this.#faults },
      promptTokens: this.#promptTokens,
      completionTokens: this.#completionTokens,
    };
  }
}
