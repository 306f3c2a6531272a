import type { NodeResponseLike } from "@llm-scheduler/adapter-kit";

/** The part of Node's `http.ServerResponse` the middleware uses when `@hono/node-server` passes one. */
export interface NodeOutgoing extends NodeResponseLike {
  /** True once Node has written the response's head. */
  readonly headersSent: boolean;
  setHeader(name: string, value: string): unknown;
}

/** Node's parsed request headers: lower-case names, repeated ones as arrays. */
type NodeIncomingHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** The Node request and response of `@hono/node-server`, as the middleware uses them. */
export interface NodeBindings {
  readonly incoming: { readonly headers: NodeIncomingHeaders };
  readonly outgoing: NodeOutgoing;
}

/**
 * The Node request and response that `@hono/node-server` hands over as `c.env.incoming` and
 * `c.env.outgoing` (its documented `HttpBindings`), or `undefined` on other runtimes and in
 * `app.request()`. Found by shape, so this package needs neither Node types nor Node imports; the
 * env object itself is returned, nothing is copied.
 */
export function nodeBindingsOf(env: unknown): NodeBindings | undefined {
  const bindings = env as
    | { incoming?: { headers?: NodeIncomingHeaders }; outgoing?: Partial<NodeOutgoing> }
    | null
    | undefined;
  const outgoing = bindings?.outgoing;
  const headers = bindings?.incoming?.headers;
  if (
    typeof outgoing?.on !== "function" ||
    typeof outgoing.setHeader !== "function" ||
    typeof outgoing.writableFinished !== "boolean" ||
    typeof headers !== "object" ||
    headers === null
  ) {
    return undefined;
  }
  return bindings as NodeBindings;
}
