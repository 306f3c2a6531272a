import { holdBody } from "@llm-scheduler/adapter-kit";
import { serverTiming } from "@llm-scheduler/core/kit";

/**
 * The response to send in place of `response` on web-standard runtimes: the same status and headers
 * plus `Server-Timing`, with the body passed through {@link holdBody} so that `release` runs once the
 * body has been read to the end, cancelled (client gone) or has failed, and `how.firstByte` when its first
 * chunk is read. A response whose body nobody
 * will read (a `HEAD` request, a client already gone) is released once that body has been cancelled;
 * one without a body at once.
 *
 * @example
 * c.res = undefined;
 * c.res = heldResponse(response, { waitMs, unread: c.req.method === "HEAD" }, (failure) => permit.release(failure));
 */
export function heldResponse(
  response: Response,
  how: { readonly waitMs: number; readonly unread: boolean; readonly firstByte?: () => void },
  release: (failure?: unknown) => void,
): Response {
  const headers = new Headers(response.headers);
  headers.set("server-timing", serverTiming(how.waitMs));
  let body = response.body;
  if (body !== null && how.unread) {
    // Nobody reads it: cancel it (an upstream fetch's body is torn down), then give the slot back.
    body.cancel().then(
      () => release(),
      () => release(),
    );
    body = null;
  } else if (body === null) release();
  else body = holdBody(body, release, how.firstByte);
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
