/** One change of an upstream's capacity: from `atMs` (virtual time since the run began), `scale` times the base. */
export interface CapacityChange {
  readonly atMs: number;
  readonly scale: number;
}

/**
 * What an LLM server can really take, which the gateway is not told: up to `knee` busy sequences the
 * step time grows only gently (`gentle` in all, as batching fills the GPU); past the knee every extra
 * sequence adds `steepness / knee` to it (the server is compute- or memory-bound, and sequences swap
 * out); past `hardLimit` in flight it answers 503 at once. `changes` scale both bounds mid-run (a
 * replica lost, or added).
 */
export interface CapacityOptions {
  readonly knee: number;
  readonly hardLimit: number;
  /** @default 4 (at twice the knee, five times slower per step) */
  readonly steepness?: number;
  /** @default 0.1 (10% slower per step with the knee's full batch than alone) */
  readonly gentle?: number;
  /** @default none */
  readonly changes?: readonly CapacityChange[];
}

/** The error a server over its hard limit answers with, as a client library would throw it. */
export class UpstreamOverloaded extends Error {
  readonly status = 503;
  constructor() {
    super("503 Service Unavailable: the server is over capacity");
    this.name = "UpstreamOverloaded";
  }
}

/**
 * The capacity model at one moment: its bounds after the changes so far, and the slowdown factor of a
 * given number of busy sequences.
 *
 * @example
 * const capacity = new Capacity({ knee: 32, hardLimit: 48 });
 * capacity.factor(40); // 1 + 0.1 + 4 * 8 / 32 = 2.1
 */
export class Capacity {
  readonly options: Required<CapacityOptions>;
  #scale = 1;

  constructor(options: CapacityOptions) {
    this.options = { steepness: 4, gentle: 0.1, changes: [], ...options };
  }

  /** The scale in force (1 until the first change). */
  get scale(): number {
    return this.#scale;
  }

  set scale(value: number) {
    this.#scale = value;
  }

  get knee(): number {
    return Math.max(1, Math.round(this.options.knee * this.#scale));
  }

  get hardLimit(): number {
    return Math.max(1, Math.round(this.options.hardLimit * this.#scale));
  }

  /** How many times slower a step is with `active` busy sequences than with one. */
  factor(active: number): number {
    const knee = this.knee;
    const below = Math.min(Math.max(active, 1), knee);
    const gentle = knee === 1 ? 0 : (this.options.gentle * (below - 1)) / (knee - 1);
    return 1 + gentle + (this.options.steepness * Math.max(0, active - knee)) / knee;
  }
}
