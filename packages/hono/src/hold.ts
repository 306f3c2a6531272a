import type { RequestSlot, ResponseWatch } from "@llm-scheduler/adapter-kit";
import {
  failureForStatus,
  type NodeWritableLike,
  untilFirstChunk,
  watchNodeUsage,
} from "@llm-scheduler/adapter-kit";
import { serverTiming } from "@llm-scheduler/core/kit";
import { heldResponse } from "./held-response.js";
import type { NodeOutgoing } from "./node-bindings.js";
import { usageReading } from "./usage-stream.js";

/** Gives the slot back, with the failure if the work failed. */
export type Release = (failure?: unknown) => void;

/** How the slot of one answered request is held: shared by the middleware and `scheduled(app)`. */
export interface Holding {
  readonly slot: RequestSlot;
  readonly release: Release;
  /**
   * Node's response on `@hono/node-server` (watched, its `write`/`end` read for usage, and given
   * `Server-Timing` by {@link holdAnswer} or {@link timeOnNode}); `undefined` elsewhere.
   */
  readonly outgoing: NodeOutgoing | undefined;
  /** Read the answer's `usage` (only while the scheduler counts tokens). */
  readonly readUsage: boolean;
}

/**
 * After the app answered `request` with `response` (`error`: what the app caught, when known): returns
 * the response to send, which holds the slot until its body has been sent, cancelled or has failed. The
 * same response when nothing needs holding (on Node, a body already in memory: given `Server-Timing`
 * and released when Node has sent it; an upgrade), otherwise a copy with `Server-Timing` whose body
 * holds the slot.
 *
 * @example
 * const sent = holdAnswer(response, request, undefined, holding);
 */
export function holdAnswer(response: Response, request: Request, error: unknown, holding: Holding): Response {
  const { slot, release, outgoing } = holding;
  const onNode = outgoing !== undefined;
  const light = onNode ? inMemoryCache(response) : undefined;
  if (light !== undefined) {
    // Nothing upstream still streams into it: Node's own end of the response is the end of the work
    // (`release` waits for it; the status sent decides a failure), and the body keeps the fast path.
    timeLightAnswer(light, holding);
    release(error);
    return response;
  }
  const failure = error ?? failureForStatus(response.status);
  if (response.status < 200) {
    timeOnNode(holding);
    release(failure); // an upgrade: no body of ours to follow
    return response;
  }
  const unread = request.signal.aborted || request.method === "HEAD"; // Hono drops a HEAD body unread
  const { permit } = slot;
  const firstByte = permit.wantsFirstByte ? () => permit.firstByte() : undefined;
  // On Node the usage is read from what Node writes (`holdPermit`); elsewhere from the body as it passes.
  const read = onNode || !holding.readUsage ? response : usageReading(response, slot);
  return heldResponse(read, { waitMs: slot.waitMs, unread, firstByte }, (broken) =>
    release(broken ?? failure),
  );
}

/**
 * For a request that can still be stopped (run timeout, preemption): the answer, once it can be
 * committed. A runtime sends the status and headers as soon as it has the `Response`
 * (`@hono/node-server` does), so an answer with a body to stream is handed on only once that body has
 * its first chunk (or has ended): until then a preemption or run timeout cancels the body (the upstream
 * call behind it) and settles with `undefined` once the slot is released, for the adapter's 503 or
 * 504. From the first chunk on (at once for an answer with nothing to wait for) the permit is past
 * preemption (`firstByte()`). The answer comes with its body unchanged, the first chunk included.
 *
 * @example
 * const answer = await untilFirstByte(response, request, holding);
 * if (answer !== undefined) return holdAnswer(answer, request, undefined, holding);
 */
export function untilFirstByte(
  response: Response,
  request: Request,
  holding: Holding,
): Response | Promise<Response | undefined> {
  const { permit } = holding.slot;
  const committed = (): void => permit.firstByte();
  const nothingToWaitFor =
    (holding.outgoing !== undefined && inMemoryCache(response) !== undefined) ||
    response.status < 200 ||
    request.method === "HEAD" ||
    request.signal.aborted;
  const body = nothingToWaitFor ? null : response.body;
  if (body === null) {
    committed();
    return response;
  }
  return untilFirstChunk(body, holding.slot.signal, committed).then((first) => {
    if (first instanceof ReadableStream) return new Response(first, response);
    holding.release(first);
    return undefined;
  });
}

/**
 * The cache of one of `@hono/node-server`'s light responses whose body is already in memory (none, a
 * string or bytes, as `c.json()` and `c.text()` make): `[status, body, headers]`, which Node writes in
 * one go. Found by the shape of the server's own cache, because reading `.body` would turn the light
 * response into a full web one (and cost the fast path); any other response answers `undefined` and
 * has its body held.
 */
function inMemoryCache(response: Response): unknown[] | undefined {
  const key = cacheKeyOf(response);
  if (key === undefined) return undefined;
  const cached = (response as unknown as Record<symbol, unknown>)[key];
  if (!Array.isArray(cached)) return undefined;
  const body: unknown = cached[1];
  return body === null || typeof body === "string" || body instanceof Uint8Array ? cached : undefined;
}

const SERVER_TIMING = "server-timing";

/**
 * Gives a light response `Server-Timing` in its own headers when they are a plain object (as `c.json()`
 * makes them): a copy with the header added (the object may be the app's own, shared by responses), so
 * that `@hono/node-server` writes the whole head in one `writeHead(status, headers)`. Set on Node's
 * response instead (`setHeader`), the header sends that `writeHead()` down Node's slow path, which sets
 * and checks each of the app's headers once more (decision 0004; `bench/tools/ab-builds.ts` measures it).
 * A `Server-Timing` the app set is kept. Other shapes (no headers, a `Headers` object): {@link timeOnNode}.
 * Node reads the copy only when it writes the head, so each request's copy is its own.
 */
function timeLightAnswer(cached: unknown[], holding: Holding): void {
  const headers = cached[2];
  if (holding.readUsage) return; // set at the grant (`holdPermit`)
  if (
    headers === null ||
    typeof headers !== "object" ||
    Object.getPrototypeOf(headers) !== Object.prototype
  ) {
    timeOnNode(holding);
    return;
  }
  const own = headers as Record<string | symbol, unknown>;
  const ours = own[TIMED] === true; // a response sent before (the app reuses it): time it afresh
  const timed: Record<string | symbol, unknown> = { [TIMED]: true };
  for (const name in own) {
    if (name.length === SERVER_TIMING.length && name.toLowerCase() === SERVER_TIMING) {
      if (!ours) return;
    } else timed[name] = own[name];
  }
  timed[SERVER_TIMING] = serverTiming(holding.slot.waitMs);
  cached[2] = timed;
}

/** Marks the headers {@link timeLightAnswer} made (a symbol: Node and the server list string keys only). */
const TIMED: unique symbol = Symbol("llm-scheduler timed headers");

/**
 * Sets `Server-Timing` on Node's response (`@hono/node-server`) for an answer that does not carry it in
 * its own headers (an error Hono answers, the middleware's 504), unless Node has already sent the head.
 *
 * @example
 * timeOnNode(holding); // before Hono's error handler answers
 */
export function timeOnNode(holding: Holding): void {
  const { outgoing } = holding;
  if (outgoing !== undefined && !outgoing.headersSent)
    outgoing.setHeader(SERVER_TIMING, serverTiming(holding.slot.waitMs));
}

/** The server's `cache` symbol, once seen (one property check a request rather than a list of symbols). */
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
 * ended: on Node (`outgoing` and its `watch`), not before Node has also closed the response.
 *
 * @example
 * const release = holdPermit(c.req.raw, slot, node?.outgoing, watch, countsTokens(scheduler));
 */
export function holdPermit(
  request: Request,
  slot: RequestSlot,
  outgoing: NodeOutgoing | undefined,
  watch: ResponseWatch | undefined,
  readUsage: boolean,
): Release {
  const { permit } = slot;
  if (watch !== undefined && outgoing !== undefined) {
    watch.hold(permit);
    if (readUsage) {
      // The usage reader asks Node's response for the content type as it writes: only headers set on
      // the response itself are there, so this one puts Node on that path for every header. Otherwise
      // `Server-Timing` goes with the answer (`holdAnswer`, `timeOnNode`).
      outgoing.setHeader(SERVER_TIMING, serverTiming(slot.waitMs));
      watchNodeUsage(outgoing as unknown as NodeWritableLike, (usage) => slot.reportUsage(usage));
    }
    return (failure) => watch.releaseAtEnd(failure);
  }
  const { signal } = request;
  if (signal.aborted)
    permit.abort(signal.reason); // granted just as the client left
  else signal.addEventListener("abort", () => permit.abort(signal.reason), { once: true });
  return (failure) => permit.release(failure);
}
