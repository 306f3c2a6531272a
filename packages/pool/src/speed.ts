import { type InferShape, object, type Resolved, withDefaults } from "@llm-scheduler/core/kit";
import { orOff, SPEED_SCHEMA } from "./schema.js";

/** How fast each replica streams (`speed`), declared in {@link SPEED_SCHEMA}; decision 0059. */
export type SpeedOptions = InferShape<typeof SPEED_SCHEMA>;

export type ResolvedSpeed = Resolved<typeof SPEED_SCHEMA>;

const SPEED_NODE = orOff(object(SPEED_SCHEMA, { doc: "speed" }));

/** Checks the `speed` options (`path` names them in errors); `false` gives `undefined`: no estimate. */
export function resolveSpeed(path: string, value: unknown): ResolvedSpeed | undefined {
  const given = SPEED_NODE.check(path, value ?? {});
  return given === false ? undefined : withDefaults(SPEED_SCHEMA, given);
}

/**
 * An exponentially weighted mean of one replica's streaming rate: units (bytes, or tokens in the
 * simulator) out after the first one, over the ms since the first one. Time after the first byte
 * leaves out the queue and the prefill, which depend on load and on the prefix cache, not on speed.
 *
 * @example
 * const meter = new SpeedMeter({ halfLife: 20, minFactor: 0.25, minSampleMs: 50 });
 * meter.record(1_000, 500); // 2 units a ms
 * meter.rate; // 2
 */
export class SpeedMeter {
  readonly #weight: number;
  readonly #minSampleMs: number;
  #rate: number | undefined;

  constructor(options: ResolvedSpeed) {
    this.#weight = 1 - 2 ** (-1 / options.halfLife);
    this.#minSampleMs = options.minSampleMs;
  }

  /** The estimate in units per ms, or `undefined` before the first sample. */
  get rate(): number | undefined {
    return this.#rate;
  }

  /** One answer: `units` out over `ms` after its first one. Too short or empty answers are dropped. */
  record(units: number, ms: number): void {
    if (!(units > 0) || !(ms >= this.#minSampleMs && ms > 0) || !Number.isFinite(units + ms)) return;
    const sample = units / ms;
    this.#rate = this.#rate === undefined ? sample : this.#rate + this.#weight * (sample - this.#rate);
  }
}

/**
 * Each replica's speed relative to the fleet's median (of those with an estimate), within
 * `[minFactor, 1]`: faster than the median counts as 1, no estimate counts as 1 (full speed).
 *
 * @example
 * relativeSpeeds([2, 2, 1, undefined], 0.25); // [1, 1, 0.5, 1]
 */
export function relativeSpeeds(rates: readonly (number | undefined)[], minFactor: number): number[] {
  const known = rates.filter((rate): rate is number => rate !== undefined && rate > 0).sort((a, b) => a - b);
  if (known.length === 0) return rates.map(() => 1);
  const middle = known.length >> 1;
  const median = known.length % 2 === 1 ? known[middle]! : (known[middle - 1]! + known[middle]!) / 2;
  return rates.map((rate) =>
    rate === undefined || !(rate > 0) ? 1 : Math.min(1, Math.max(minFactor, rate / median)),
  );
}

/**
 * `body`, passed on unchanged, while counting its bytes: when it ends normally, `done(bytes after the
 * first chunk, ms since the first chunk)`. An error or cancel gives no call.
 */
export function countedBody(
  body: ReadableStream<Uint8Array>,
  now: () => number,
  done: (units: number, ms: number) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let firstAt: number | undefined;
  let units = 0;
  // Read only when the consumer asks (no pipe reading ahead), as the body it wraps is read.
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const result = await reader.read();
        if (result.done) {
          controller.close();
          if (firstAt !== undefined) done(units, now() - firstAt);
          return;
        }
        if (firstAt === undefined) firstAt = now();
        else units += result.value.byteLength;
        controller.enqueue(result.value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
