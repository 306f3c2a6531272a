import { type NodeResponseLike, nodeHeaderReader } from "@llm-scheduler/adapter-kit";
import type { HeaderReader } from "@llm-scheduler/core";

/** The part of Node's `http.ServerResponse` the middleware uses when `@hono/node-server` passes one. */
export interface NodeOutgoing extends NodeResponseLike {
  setHeader(name: string, value: string): unknown;
}

/** The Node request and response of `@hono/node-server`, as the middleware uses them. */
export interface NodeBindings {
  readonly outgoing: NodeOutgoing;
  /** Reads a request header straight from Node's parsed headers (no `Headers` object is built). */
  readonly header: HeaderReader;
}

type IncomingHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * The Node request and response that `@hono/node-server` hands over as `c.env.incoming` and
 * `c.env.outgoing` (its documented `HttpBindings`), or `undefined` on other runtimes and in
 * `app.request()`. Found by shape, so this package needs neither Node types nor Node imports.
 */
export function nodeBindingsOf(env: unknown): NodeBindings | undefined {
  const bindings = env as
    | { incoming?: { headers?: IncomingHeaders }; outgoing?: Partial<NodeOutgoing> }
    | null
    | undefined;
  const outgoing = bindings?.outgoing;
  const headers = bindings?.incoming?.headers;
  if (
    typeof outgoing?.once !== "function" ||
    typeof outgoing.setHeader !== "function" ||
    typeof outgoing.writableFinished !== "boolean" ||
    typeof headers !== "object" ||
    headers === null
  ) {
    return undefined;
  }
  return { outgoing: outgoing as NodeOutgoing, header: nodeHeaderReader(headers) };
}
