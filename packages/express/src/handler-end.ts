import type { ResponseWatch } from "@llm-scheduler/adapter-kit";
import type { Response } from "express";

/** Sends a complete response without it counting as the handler's own end (the middleware's 504). */
export type RawEnd = (status: number, headers: Readonly<Record<string, string>>, body: string) => void;

/**
 * Express cannot tell a middleware when the route handler's work is over (its promise is the router's),
 * so the handler's own `res.end()` (which `res.send()`, `res.json()`, `pipe()` and Express's error
 * handler all call) or `res.destroy()` (a response broken midway) stands for it: the watch releases the
 * slot once that has happened and the response has been sent or the client has gone. A handler that
 * never ends its response after an abort (or throws after it began streaming: Express then drops the
 * connection without either call) keeps the slot until the scheduler's `abortGraceMs`. Returns how to send a response without that meaning.
 *
 * @example
 * const rawEnd = releaseWhenHandlerEnds(res, watch);
 */
export function releaseWhenHandlerEnds(res: Response, watch: ResponseWatch): RawEnd {
  const { end, destroy } = res;
  let ended = false;
  const workEnded = (failure?: unknown): void => {
    if (ended) return;
    ended = true;
    watch.releaseAtEnd(failure); // without a failure, a 5xx sent counts as failed
  };
  res.end = function endThenRelease(this: Response, ...args: unknown[]) {
    const result = (end as (...given: unknown[]) => Response).apply(this, args);
    workEnded();
    return result;
  } as Response["end"];
  res.destroy = function destroyThenRelease(this: Response, error?: Error) {
    const result = destroy.call(this, error);
    workEnded(error ?? new Error("The handler destroyed the response"));
    return result;
  };
  return (status, headers, body) => {
    res.writeHead(status, headers);
    (end as (chunk: string) => Response).call(res, body);
  };
}
