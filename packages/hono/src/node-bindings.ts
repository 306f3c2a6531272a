import type { NodeResponseLike } from "@llm-scheduler/adapter-kit";

/** The part of Node's `http.ServerResponse` the middleware uses when `@hono/node-server` passes one. */
export interface NodeOutgoing extends NodeResponseLike {
  setHeader(name: string, value: string): unknown;
}

/**
 * The Node response that `@hono/node-server` hands over as `c.env.outgoing` (its documented
 * `HttpBindings`), or `undefined` on other runtimes and in `app.request()`. Found by shape, so this
 * package needs neither Node types nor Node imports.
 */
export function nodeOutgoingOf(env: unknown): NodeOutgoing | undefined {
  const outgoing = (env as { outgoing?: Partial<NodeOutgoing> } | null | undefined)?.outgoing;
  if (
    typeof outgoing?.once === "function" &&
    typeof outgoing.setHeader === "function" &&
    typeof outgoing.writableFinished === "boolean"
  ) {
    return outgoing as NodeOutgoing;
  }
  return undefined;
}
