/**
 * A fault the simulator can inject into a request.
 *
 * @example
 * const kind: FaultKind = "429";
 */
export type FaultKind = "429" | "500" | "slow" | "hang";

/**
 * The fault kinds, in the order they are drawn.
 *
 * @example
 * faultKinds.includes("hang"); // true
 */
export const faultKinds: readonly FaultKind[] = ["429", "500", "slow", "hang"];
