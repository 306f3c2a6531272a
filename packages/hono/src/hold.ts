import type { RequestSlot, ResponseWatch } from "@llm-scheduler/adapter-kit";
import {
  countsTokens,
  failureForStatus,
  type NodeWritableLike,
  watchNodeUsage,
} from "@llm-scheduler/adapter-kit";
import type { Scheduler } from "@llm-scheduler/core";
import { serverTiming } from "@llm-scheduler/core/kit";
import type { Context } from "hono";
import type { LlmSchedulerEnv } from "./env.js";
import { heldResponse } from "./held-response.js";
import type { NodeBindings } from "./node-bindings.js";
import { usageReading } from "./usage-stream.js";

/** Gives the slot back, with the failure if the work failed. */
export type Release = (failure?: unknown) => void;

/**
 * After the handler: holds the slot until its response body has been sent, cancelled or has failed.
 *
 * @example
 * await next();
 * holdResponse(c, slot, release, false, watch !== undefined, scheduler);
 */
export function holdResponse(
  c: Context<LlmSchedulerEnv>,
  slot: RequestSlot,
  release: Release,
  timedOut: boolean,
  onNode: boolean,
  scheduler: Scheduler,
): undefined {
  if (timedOut) {
    release(c.error); // the middleware's 504 went out instead of this response
    return undefined;
  }
  const response = c.res;
  if (onNode && inMemoryBody(response)) {
    // Nothing upstream still streams into it: Node's own end of the response is the end of the work
    // (`release` waits for it; the status sent decides a failure), and the body keeps the fast path.
    release(c.error);
    return undefined;
  }
  const failure = c.error ?? failureForStatus(response.status);
  if (response.status < 200) {
    release(failure); // an upgrade: no body of ours to follow
    return undefined;
  }
  const unread = c.req.raw.signal.aborted || c.req.method === "HEAD"; // Hono drops a HEAD body unread
  c.res = undefined; // replace the response rather than merge its headers into a copy
  const { permit } = slot;
  const firstByte = permit.wantsFirstByte ? () => permit.firstByte() : undefined;
  // On Node the usage is read from what Node writes (`holdPermit`); elsewhere from the body as it passes,
  // and only while the scheduler counts tokens.
  const read = onNode || !countsTokens(scheduler) ? response : usageReading(response, slot);
  c.res = heldResponse(read, { waitMs: slot.waitMs, unread, firstByte }, (broken) =>
    release(broken ?? failure),
  );
  return undefined;
}

/**
 * True for one of `@hono/node-server`'s light responses whose body is already in memory (none, a string
 * or bytes, as `c.json()` and `c.text()` make): Node writes it in one go. Found by the shape of the
 * server's own cache, because reading `.body` would turn the light response into a full web one (and
 * cost the fast path); any other response answers `false` and has its body held.
 */
function inMemoryBody(response: Response): boolean {
  const cached = (response as unknown as Record<symbol, unknown>)[cacheKeyOf(response) ?? NONE];
  if (!Array.isArray(cached)) return false;
  const body: unknown = cached[1];
  return body === null || typeof body === "string" || body instanceof Uint8Array;
}

const NONE: unique symbol = Symbol("none");
/** The server's `cache` symbol, once seen (one property read a request rather than a list of symbols). */
let cacheKey: symbol | undefined;

function cacheKeyOf(response: Response): symbol | undefined {
  if (cacheKey !== undefined && cacheKey in response) return cacheKey;
  for (const key of Object.getOwnPropertySymbols(response)) {
    if (key.description !== "cache") continue;
    cacheKey = key;
    return key;
  }
  return undefined;
}

/**
 * From the grant on: the permit's signal aborts at once when the client leaves (Node's response closes,
 * or the request's own signal aborts). Returns how to release the permit once the handler's work has
 * ended: on Node, not before Node has also closed the response.
 *
 * @example
 * const release = holdPermit(c, slot, watch, scheduler);
 */
export function holdPermit(
  c: Context<LlmSchedulerEnv>,
  slot: RequestSlot,
  watch: ResponseWatch | undefined,
  scheduler: Scheduler,
): Release {
  const { permit } = slot;
  if (watch !== undefined) {
    watch.hold(permit);
    const { outgoing } = c.env as NodeBindings;
    outgoing.setHeader("server-timing", serverTiming(slot.waitMs));
    if (countsTokens(scheduler))
      watchNodeUsage(outgoing as unknown as NodeWritableLike, (usage) => slot.reportUsage(usage));
    return (failure) => watch.releaseAtEnd(failure);
  }
  const { signal } = c.req.raw;
  if (signal.aborted)
    permit.abort(signal.reason); // granted just as the client left
  else signal.addEventListener("abort", () => permit.abort(signal.reason), { once: true });
  return (failure) => permit.release(failure);
}
