import { finished, type Stream } from "node:stream";
import { holdBody, type ResponseWatch } from "@llm-scheduler/adapter-kit";
import type { Context } from "koa";

function isNodeStream(body: unknown): body is Stream {
  return typeof (body as Partial<Stream> | null)?.pipe === "function";
}

/**
 * Downstream has returned; the handler's work goes on while Koa sends a stream body. Tells the watch
 * the work has ended once that body has ended or been destroyed (Koa destroys it when the client
 * leaves) or, for a web `ReadableStream`, once it has been read to the end or its cancel has reached
 * the source (an upstream fetch's body: the upstream call is then torn down; a web stream Koa never got
 * to send is cancelled when the response closes). Any other body: now.
 *
 * @example
 * await next();
 * releaseWhenBodyEnds(ctx, watch);
 */
export function releaseWhenBodyEnds(ctx: Context, watch: ResponseWatch): void {
  const { body } = ctx;
  if (body instanceof ReadableStream) {
    const held = holdBody(body as ReadableStream<Uint8Array>, (failure) => watch.releaseAtEnd(failure));
    ctx.body = held;
    // Koa never reads (nor cancels) a web stream body when the client had gone before it could send it.
    const dropUnsent = (): void => {
      if (!held.locked) held.cancel().catch(() => undefined);
    };
    if (watch.ended) dropUnsent();
    else ctx.res.once("close", dropUnsent);
  } else if (isNodeStream(body)) {
    // A stream that failed (or was cut short) counts as failed; one read to its end, by the status sent.
    finished(body as unknown as NodeJS.ReadableStream, (error) => watch.releaseAtEnd(error ?? undefined));
  } else {
    watch.releaseAtEnd(); // a 5xx sent counts as failed
  }
}

/**
 * After the middleware has answered a run timeout itself: a body downstream set later is never sent,
 * so it is cancelled (a stream) and the work counts as ended.
 *
 * @example
 * discardBody(ctx.body, watch);
 */
export function discardBody(body: unknown, watch: ResponseWatch): void {
  if (body instanceof ReadableStream) body.cancel().catch(() => undefined);
  else if (isNodeStream(body)) (body as Stream & { destroy?: () => void }).destroy?.();
  watch.releaseAtEnd();
}
