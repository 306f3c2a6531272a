import { integerIn, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import type { ReplicaState } from "../replica-state.js";
import { hashString } from "./hash.js";
import { pickLeastLoaded } from "./least-loaded.js";
import { HashRing } from "./ring.js";
import { candidates, capacityOf, openReplicas, type RandomSource, type Router } from "./router.js";

/** Options of {@link prefixAffinity}. */
export interface PrefixOptions {
  /**
   * `c` of bounded-load consistent hashing: a replica takes a request only while its in-flight count
   * stays within `ceil(c × (pool in flight + 1) × its capacity / pool capacity)` (capacity: its limit
   * weighed by its relative `speed`, see `capacityOf`); otherwise the request goes on to the next
   * replica on the ring. Lower spreads more, higher keeps more affinity. In (1, 100].
   * @default 1.25
   */
  readonly loadFactor?: number;
  /** Points per replica on the hash ring, 1 to 4096: more points spread keys more evenly. @default 100 */
  readonly virtualNodes?: number;
  /** Draws the two replicas compared for requests without a key (least loaded). @default Math.random */
  readonly random?: RandomSource;
}

const KEYS = ["loadFactor", "virtualNodes", "random"];

function resolve(options: PrefixOptions): Required<PrefixOptions> {
  rejectUnknownKeys("", options, KEYS);
  const { loadFactor = 1.25, virtualNodes = 100, random = Math.random } = options;
  if (typeof loadFactor !== "number" || !(loadFactor > 1 && loadFactor <= 100)) {
    throw invalidOption("loadFactor", "a number in (1, 100]", loadFactor);
  }
  integerIn("virtualNodes", virtualNodes, 1, 4096);
  if (typeof random !== "function") throw invalidOption("random", "a function", random);
  return { loadFactor, virtualNodes, random };
}

/**
 * Affinity on a routing key (a hash of the prompt's prefix, or a session) by consistent hashing with
 * bounded loads: the same key goes to the same replica, so its prefix cache stays warm, until that
 * replica holds more than `loadFactor` times its share of the pool's requests (its share: its limit
 * weighed by its relative speed, so a slow replica spills sooner); then the request spills
 * to the next replica on the ring (always the same order for a key). Adding or removing a replica moves
 * only the keys it gains or held. A request without a key goes to the least loaded of two.
 *
 * An engine queue on the key's replica does not move the key by itself: requests queued in the engine
 * count in its in-flight load, so the bound moves keys off a replica whose queue grows, while a short
 * wait for a sequence there costs less than prefilling the whole prefix elsewhere.
 *
 * @example
 * const router = prefixAffinity({ loadFactor: 1.25 });
 * const routingKey = createRoutingKey();
 * router.pick(replicas, routingKey(body)); // the same replica for the same system prompt
 */
export function prefixAffinity(options: PrefixOptions = {}): Router {
  const { loadFactor, virtualNodes, random } = resolve(options);
  let ring = new HashRing([], virtualNodes);
  let seen: string[] = [];
  return {
    pick(replicas, key, accept) {
      if (key === undefined) return pickLeastLoaded(candidates(replicas, accept), random);
      const open = openReplicas(replicas, accept);
      if (open.length === 0) return null;
      if (!sameIds(seen, replicas)) {
        seen = replicas.map((replica) => replica.id);
        if (!ring.holds(seen)) ring = new HashRing(seen, virtualNodes);
      }
      return walk(ring, replicas, open, hashString(key), loadFactor);
    },
  };
}

/** True when the replicas are the ids last seen, in the same order (the usual case: no change). */
function sameIds(ids: readonly string[], replicas: readonly ReplicaState[]): boolean {
  if (ids.length !== replicas.length) return false;
  for (let index = 0; index < ids.length; index++) if (ids[index] !== replicas[index]!.id) return false;
  return true;
}

/** The first replica on the key's walk within its load bound; the first open one if none is. */
function walk(
  ring: HashRing,
  replicas: readonly ReplicaState[],
  open: readonly ReplicaState[],
  hash: number,
  loadFactor: number,
): string {
  let inFlight = 0;
  let capacity = 0;
  for (const replica of replicas) {
    if (!replica.healthy) continue;
    inFlight += replica.inFlight;
    capacity += capacityOf(replica);
  }
  const byId = new Map(open.map((replica) => [replica.id, replica]));
  let firstOpen: string | undefined;
  const found = ring.visit(hash, (id) => {
    const replica = byId.get(id);
    if (replica === undefined) return false;
    firstOpen ??= id;
    const bound = Math.ceil((loadFactor * (inFlight + 1) * capacityOf(replica)) / capacity);
    return replica.inFlight + 1 <= bound;
  });
  return found ?? firstOpen ?? open[0]!.id;
}
