import type { ReplicaState } from "../replica-state.js";
import { candidates, loadOf, type RandomSource, type Router } from "./router.js";

/** Options of {@link leastLoaded}. */
export interface LeastLoadedOptions {
  /** Draws the two replicas compared. @default Math.random */
  readonly random?: RandomSource;
}

/**
 * Power of two choices on in-flight over limit: draws two replicas that may take the request and picks
 * the less loaded one (the first drawn on a tie). Nearly as even as always taking the least loaded, and
 * several gateways sharing the same counts do not all pile onto the same replica.
 *
 * @example
 * const router = leastLoaded();
 * router.pick([{ id: "a", limit: 8, inFlight: 7, healthy: true }, { id: "b", limit: 8, inFlight: 1, healthy: true }], undefined); // "b"
 */
export function leastLoaded(options: LeastLoadedOptions = {}): Router {
  const random = options.random ?? Math.random;
  return {
    pick(replicas, _key, accept) {
      return pickLeastLoaded(candidates(replicas, accept), random);
    },
  };
}

/** Power of two choices among `open` (replicas that may take the request). */
export function pickLeastLoaded(open: readonly ReplicaState[], random: RandomSource): string | null {
  if (open.length === 0) return null;
  if (open.length === 1) return open[0]!.id;
  const first = Math.min(open.length - 1, Math.floor(random() * open.length));
  let second = Math.min(open.length - 2, Math.floor(random() * (open.length - 1)));
  if (second >= first) second++;
  const a = open[first]!;
  const b = open[second]!;
  return loadOf(b) < loadOf(a) ? b.id : a.id;
}
