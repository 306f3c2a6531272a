import { finished, type Stream } from "node:stream";
import type { NodeResponseLike, ResponseWatch } from "@llm-scheduler/adapter-kit";
import type { Response } from "express";

type End = (this: Response, ...args: unknown[]) => Response;
type Destroy = (this: Response, error?: Error) => Response;

/** Where a wrapped response keeps its originals and its watch (one object, no closure per request). */
const HANDLER_END: unique symbol = Symbol("llm-scheduler handler end");

class HandlerEnd {
  readonly end: End;
  readonly destroy: Destroy;
  readonly watch: ResponseWatch;
  ended = false;

  constructor(res: Response, watch: ResponseWatch) {
    this.end = res.end as unknown as End;
    this.destroy = res.destroy as Destroy;
    this.watch = watch;
  }

  workEnded(failure?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.watch.releaseAtEnd(failure); // without a failure, a 5xx sent counts as failed
  }
}

type Wrapped = Response & { [HANDLER_END]: HandlerEnd };

// Shared by every response: `this` is the response, its state is under `HANDLER_END`.
function endThenRelease(this: Wrapped, ...args: unknown[]): Response {
  const state = this[HANDLER_END];
  const result = state.end.apply(this, args);
  state.workEnded();
  return result;
}

function destroyThenRelease(this: Wrapped, error?: Error): Response {
  const state = this[HANDLER_END];
  const result = state.destroy.call(this, error);
  state.workEnded(error ?? new Error("The handler destroyed the response"));
  return result;
}

/**
 * Express cannot tell a middleware when the route handler's work is over (its promise is the router's),
 * so the handler's own `res.end()` (which `res.send()`, `res.json()`, `pipe()` and Express's error
 * handler all call) or `res.destroy()` (a response broken midway) stands for it. A response sent as
 * usual needs nothing more (its `close` after `end()` says it all, see `ResponseWatch.endsWithResponse`);
 * this wraps `end` and `destroy` only when it does not: the client left while the handler still works,
 * or the middleware answered itself (a 504). The watch releases the slot once the handler has ended or
 * destroyed the response. A handler that never ends its response after an abort (or throws after it
 * began streaming: Express then drops the connection without either call), or destroys it without an
 * error before the wrappers are in place (Node's response then looks like one whose client left), keeps
 * the slot until the scheduler's `abortGraceMs` (see {@link workGoesOn} for a client gone). The wrappers
 * are shared functions; a request costs one small object.
 *
 * @example
 * releaseWhenHandlerEnds(res, watch);
 */
export function releaseWhenHandlerEnds(response: NodeResponseLike, watch: ResponseWatch): void {
  const res = response as Response; // the watch follows the middleware's Express `res`
  watch.endsWithResponse(null); // from now on, the wrappers tell the watch when the handler has ended
  (res as Wrapped)[HANDLER_END] = new HandlerEnd(res, watch);
  res.end = endThenRelease as unknown as Response["end"];
  res.destroy = destroyThenRelease as unknown as Response["destroy"];
}

type Socketed = { readonly req?: { readonly socket?: Destroyable | null } };
type Destroyable = { destroy: (this: unknown, ...args: unknown[]) => unknown };

/** A stream piped into the response once its client has gone: nobody reads it any more. */
function dropSource(this: Wrapped, source: Stream): void {
  const state = this[HANDLER_END];
  (source as Stream & { unpipe?: (dest: unknown) => void }).unpipe?.(this);
  (source as Stream & { destroy?: () => void }).destroy?.();
  finished(source as unknown as NodeJS.ReadableStream, () => state.workEnded());
}

/**
 * The response closed before the handler ended it (its client left): as {@link releaseWhenHandlerEnds},
 * and two more ends of the handler's work are watched. A stream piped into the response (`pipe()`),
 * before or after the client left, is destroyed, since nobody reads it, and its end is the handler's.
 * Express's error handler, for a handler that throws once its response has begun, destroys the
 * request's socket instead of ending the response: the socket is closed already (nothing else uses it),
 * so its `destroy()` is watched as the handler's end too.
 *
 * @example
 * watch.endsWithResponse(workGoesOn);
 */
export function workGoesOn(response: NodeResponseLike, watch: ResponseWatch): void {
  releaseWhenHandlerEnds(response, watch);
  const res = response as Wrapped;
  res.on("unpipe", dropSource);
  res.on("pipe", dropSource);
  const socket = (res as unknown as Socketed).req?.socket;
  if (socket === null || socket === undefined) return;
  const destroy = socket.destroy;
  const state = res[HANDLER_END];
  socket.destroy = function destroyThenRelease(this: unknown, ...args: unknown[]) {
    socket.destroy = destroy;
    const result = destroy.apply(this, args);
    state.workEnded();
    return result;
  };
}
