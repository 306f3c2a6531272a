import { invalidOption } from "@llm-scheduler/core/kit";
import type { Outgoing } from "./outgoing.js";
import { createRouter, ROUTINGS, type Routing } from "./routing/create-router.js";
import type { Router } from "./routing/router.js";
import { createRoutingKey, type RoutingKeyFunction, type RoutingKeyOptions } from "./routing/routing-key.js";

/** Reads a request's routing key from its outgoing form (body and headers); never throws. */
export type KeyOfRequest = (request: Outgoing) => string | undefined;

/** The pool's router: one by name (`"prefix"` by default), or the caller's `Router`. */
export function resolveRouter(routing: Routing | Router | undefined): Router {
  if (routing === undefined) return createRouter("prefix");
  if (typeof routing === "string" && (ROUTINGS as readonly string[]).includes(routing)) {
    return createRouter(routing);
  }
  if (typeof routing === "object" && routing !== null && typeof routing.pick === "function") return routing;
  const names = ROUTINGS.map((name) => `"${name}"`).join(", ");
  throw invalidOption("routing", `one of ${names}, or a Router (an object with \`pick\`)`, routing);
}

/**
 * How the pool finds a request's routing key when `pool.fetch()` is given none: `createRoutingKey()`
 * over the JSON body and headers (with these options), the caller's function, or nothing (`false`).
 */
export function resolveKeyOf(
  option: RoutingKeyOptions | RoutingKeyFunction | false | undefined,
): KeyOfRequest {
  if (option === false) return () => undefined;
  let keyOf: RoutingKeyFunction;
  if (typeof option === "function") keyOf = option;
  else if (option === undefined || (typeof option === "object" && option !== null)) {
    keyOf = createRoutingKey(option ?? {});
  } else {
    throw invalidOption("routingKey", "routing-key options, a function or `false`", option);
  }
  return (request) => {
    try {
      const key = keyOf(jsonOf(request.body), request.headers);
      return typeof key === "string" && key !== "" ? key : undefined;
    } catch {
      return undefined; // a body or a key function that fails gives no affinity, never an error
    }
  };
}

const decoder = new TextDecoder();

/** The parsed JSON object of a body, or `undefined` when it is none (empty, not JSON, not an object). */
function jsonOf(body: Outgoing["body"]): unknown {
  if (body === null) return undefined;
  const text = typeof body === "string" ? body : decoder.decode(body);
  if (!text.trimStart().startsWith("{")) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
