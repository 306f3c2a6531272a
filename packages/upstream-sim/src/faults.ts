import { HttpError } from "./errors.js";
import { type FaultKind, faultKinds } from "./fault-kinds.js";
import { type FaultRates, resolveFaultRates } from "./options.js";
import type { Random } from "./prng.js";

/** The request header that forces a fault (or `none`) on one request. */
export const faultHeader = "x-sim-fault";

/**
 * Decides the fault of each request: the `x-sim-fault` header when present, else a draw from the
 * rates with the seeded generator.
 *
 * @example
 * const picker = new FaultPicker({ 429: 0.1 }, createRandom(42));
 * picker.pick(req.headers["x-sim-fault"]); // "429" about one time in ten, else undefined
 */
export class FaultPicker {
  readonly #random: Random;
  #rates: Readonly<Record<FaultKind, number>>;

  constructor(rates: FaultRates, random: Random) {
    this.#rates = resolveFaultRates(rates);
    this.#random = random;
  }

  /** The current rates, with every kind present. */
  get rates(): Readonly<Record<FaultKind, number>> {
    return this.#rates;
  }

  /** Replaces the rates; kinds left out become 0. Throws `INVALID_OPTION` on invalid rates. */
  setRates(rates: FaultRates): void {
    this.#rates = resolveFaultRates(rates);
  }

  /**
   * The fault for one request, or `undefined` for none. A header value other than a fault kind or
   * `none` throws a 400 {@link HttpError}. A draw happens only without the header, so forced requests
   * do not shift the sequence of drawn faults.
   */
  pick(header: string | string[] | undefined): FaultKind | undefined {
    if (header !== undefined) return parseFaultHeader(header);
    const draw = this.#random();
    let threshold = 0;
    for (const kind of faultKinds) {
      threshold += this.#rates[kind];
      if (draw < threshold) return kind;
    }
    return undefined;
  }
}

function parseFaultHeader(header: string | string[]): FaultKind | undefined {
  const value = (Array.isArray(header) ? header.join(",") : header).trim().toLowerCase();
  if (value === "none" || value === "") return undefined;
  if (faultKinds.includes(value as FaultKind)) return value as FaultKind;
  throw new HttpError(
    400,
    `\`${faultHeader}\` must be one of ${faultKinds.join(", ")}, none; got \`${value}\``,
    {
      code: "invalid_fault",
      param: faultHeader,
    },
  );
}
