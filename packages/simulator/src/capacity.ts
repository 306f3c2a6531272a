import type { InferShape } from "@llm-scheduler/core/kit";
import { type Checked, checked } from "./fields.js";
import { CAPACITY, CHANGE } from "./scenario.js";

/** One change of an upstream's capacity: from `atMs` (virtual time since the run began), `scale` times the base. */
export type CapacityChange = InferShape<typeof CHANGE>;

/**
 * What an LLM server can really take, which the gateway is not told: up to `knee` busy sequences the
 * step time grows only gently (`gentle` in all, as batching fills the GPU); past the knee every extra
 * sequence adds `steepness / knee` to it (the server is compute- or memory-bound, and sequences swap
 * out); past `hardLimit` in flight it answers 503 at once. `changes` scale both bounds mid-run (a
 * replica lost, or added). Declared as the scenario's `upstream.capacity`, with its defaults.
 */
export type CapacityOptions = InferShape<typeof CAPACITY>;

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
  /** The options with their defaults (`hardLimit`: twice the knee). */
  readonly options: Omit<Checked<typeof CAPACITY>, "hardLimit" | "changes"> & {
    readonly hardLimit: number;
    readonly changes: readonly Checked<typeof CHANGE>[];
  };
  #scale = 1;

  constructor(options: CapacityOptions) {
    const { hardLimit = 2 * options.knee, changes, ...rest } = checked(CAPACITY, options);
    this.options = { ...rest, hardLimit, changes: changes.map((change) => checked(CHANGE, change)) };
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
