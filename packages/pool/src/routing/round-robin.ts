import { candidates, type Router } from "./router.js";

/**
 * Each request to the next replica in turn that may take it (healthy, with room, no engine queue when
 * another has none). Knows nothing of load or prompts: the baseline the other routers are measured
 * against.
 *
 * @example
 * const router = roundRobin();
 * router.pick(replicas, undefined); // "r0", then "r1", ...
 */
export function roundRobin(): Router {
  let next = 0;
  return {
    pick(replicas, _key, accept) {
      const open = new Set(candidates(replicas, accept));
      if (open.size === 0) return null;
      const count = replicas.length;
      for (let step = 0; step < count; step++) {
        const index = (next + step) % count;
        const replica = replicas[index]!;
        if (!open.has(replica)) continue;
        next = (index + 1) % count;
        return replica.id;
      }
      return null;
    },
  };
}
