import { failureForStatus, holdBody } from "@llm-scheduler/adapter-kit";
import type { Permit } from "@llm-scheduler/core";
import { PoolError, PoolErrorCode } from "./errors.js";
import type { Outgoing } from "./outgoing.js";
import type { Placement } from "./placement.js";
import type { Replica } from "./replica.js";
import { giveBack, type LeasedPlaced, placeShared, type Sharing } from "./shared.js";

/** Statuses that say "not now, not here" before any work was done: the request goes elsewhere. */
const ELSEWHERE = new Set([429, 503]);

/** Response headers that described the upstream's encoding of the body, not the body handed on. */
const DROPPED_RESPONSE_HEADERS = ["content-encoding", "content-length", "transfer-encoding", "connection"];

/** What sending a request needs from the pool. */
export interface ForwardDeps {
  readonly placement: Placement;
  readonly retries: number;
  readonly fetch: typeof fetch;
  /** The ledger shared with other instances, if any. */
  readonly shared?: Sharing | undefined;
  /**
   * True when the pool acquired the permit (`pool.fetch()`): it then releases it with the answer and
   * reports its first byte. False for `pool.forward()`: the caller (an adapter) does both.
   */
  readonly ownsPermit: boolean;
}

/** Who the request is, for placement. */
export interface Routing {
  readonly priority: string;
  readonly tenant: string | undefined;
  readonly routingKey: string | undefined;
}

/**
 * Sends `request` for the holder of `permit` to a replica, and on a failure before the first byte
 * (connection refused or reset, 503, 429) to another one, up to `retries` more times, never to a
 * replica it already failed on; the pool slot stays held throughout, so the request keeps its place.
 * Resolves with a response whose body holds the pool slot and the replica's slot until its last byte
 * (or cancel, or failure); once it is handed on, the request never moves. When every attempt failed,
 * resolves with the last 429/503 answer, or rejects with `UPSTREAM_UNAVAILABLE` (connection errors) or
 * `NO_REPLICA`; the pool slot is then released (when the pool owns it, see {@link ForwardDeps}).
 */
export async function forward(
  deps: ForwardDeps,
  permit: Permit,
  request: Outgoing,
  routing: Routing,
): Promise<Response> {
  const tried = new Set<string>();
  let last: unknown;
  for (let attempt = 0; attempt <= deps.retries; attempt++) {
    let placed: LeasedPlaced;
    try {
      placed = await placeShared(deps.placement, deps.shared, { ...routing, tried }, permit.signal);
    } catch (error) {
      if (attempt > 0 && error instanceof PoolError) break; // nothing left to try: answer with the last failure
      throw error;
    }
    const answer = await attemptOn(deps, placed, permit, request);
    if (answer instanceof Response) return answer;
    tried.add(placed.replica.id);
    last = answer.failure;
  }
  return giveUp(last, permit, deps.ownsPermit);
}

/** One attempt on a placed replica: the held response, or the failure that lets the request move. */
async function attemptOn(
  deps: ForwardDeps,
  placed: LeasedPlaced,
  permit: Permit,
  request: Outgoing,
): Promise<Response | { failure: unknown }> {
  const { replica } = placed;
  const release = (failure?: unknown): void => giveBack(deps.placement, deps.shared, placed, failure);
  let response: Response;
  try {
    response = await deps.fetch(`${replica.url}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: permit.signal,
    });
  } catch (error) {
    release(error);
    if (permit.signal.aborted) throw permit.signal.reason; // ours: run timeout, preemption, caller gone
    replica.health?.failure();
    replica.countFailedBeforeFirstByte();
    return { failure: error };
  }
  if (ELSEWHERE.has(response.status)) {
    const body = await response.arrayBuffer().catch(() => new ArrayBuffer(0));
    if (response.status >= 500) replica.health?.failure();
    release(failureForStatus(response.status));
    replica.countFailedBeforeFirstByte();
    return { failure: new Response(body, { status: response.status, headers: handedOnHeaders(response) }) };
  }
  if (response.status >= 500) replica.health?.failure();
  else replica.health?.success();
  return held(response, replica, permit, release, deps.ownsPermit);
}

/** The answer handed on: its body holds both slots until the last byte, cancel or failure. */
function held(
  response: Response,
  replica: Replica,
  permit: Permit,
  release: (failure?: unknown) => void,
  ownsPermit: boolean,
): Response {
  const statusFailure = failureForStatus(response.status);
  const done = (broken?: unknown): void => {
    if (broken !== undefined && !permit.signal.aborted) replica.health?.failure(); // reset mid-stream
    release(broken ?? statusFailure);
    if (ownsPermit) permit.release(broken ?? statusFailure);
  };
  const first = ownsPermit ? (): void => permit.firstByte() : undefined;
  const init = {
    status: response.status,
    statusText: response.statusText,
    headers: handedOnHeaders(response),
  };
  if (response.body === null) {
    done();
    return new Response(null, init);
  }
  return new Response(holdBody(replica.measured(response.body), done, first), init);
}

function handedOnHeaders(response: Response): Headers {
  const headers = new Headers(response.headers);
  for (const name of DROPPED_RESPONSE_HEADERS) headers.delete(name);
  return headers;
}

function giveUp(last: unknown, permit: Permit, ownsPermit: boolean): Response {
  if (last instanceof Response) {
    if (ownsPermit) permit.release(failureForStatus(last.status));
    return last;
  }
  const error = new PoolError(
    PoolErrorCode.UPSTREAM_UNAVAILABLE,
    "Every replica tried failed before answering",
    { cause: last },
  );
  if (ownsPermit) permit.release(error);
  throw error;
}
