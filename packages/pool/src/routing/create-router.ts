import { invalidOption } from "@llm-scheduler/core/kit";
import { leastLoaded } from "./least-loaded.js";
import { type PrefixOptions, prefixAffinity } from "./prefix.js";
import { roundRobin } from "./round-robin.js";
import type { Router } from "./router.js";

/** The routers a pool can be configured with by name (`routing` in a config file). */
export const ROUTINGS = ["prefix", "least-loaded", "round-robin"] as const;
export type Routing = (typeof ROUTINGS)[number];

/**
 * The router a configured `routing` names; `options` apply to `prefix` (and its keyless fallback) and
 * `random` to `least-loaded`. Throws `INVALID_OPTION` for any other name.
 *
 * @example
 * const router = createRouter("prefix", { loadFactor: 1.25 });
 */
export function createRouter(routing: Routing, options: PrefixOptions = {}): Router {
  switch (routing) {
    case "prefix":
      return prefixAffinity(options);
    case "least-loaded":
      return leastLoaded({ random: options.random });
    case "round-robin":
      return roundRobin();
    default:
      throw invalidOption("routing", `one of ${ROUTINGS.map((name) => `"${name}"`).join(", ")}`, routing);
  }
}
