import { invalidOption } from "@llm-scheduler/core/kit";

/** A request as the pool sends it, replayable on another replica: its body is read once, up front. */
export interface Outgoing {
  readonly path: string;
  readonly method: string;
  readonly headers: Headers;
  readonly body: Uint8Array<ArrayBuffer> | string | null;
}

/** The body a caller may give `pool.fetch()`: kept whole, so that it can be sent again elsewhere. */
export type ReplayableBody = string | Uint8Array<ArrayBuffer> | ArrayBuffer | null;

/** Request headers that belong to one connection, or that `fetch` sets itself. */
const HOP_HEADERS = ["host", "connection", "keep-alive", "content-length", "transfer-encoding", "upgrade"];

/**
 * The replayable form of a request: `input` is a `Request` (its path, query, method, headers and body
 * are used, the body read once) or a path such as `/v1/chat/completions` with `init`.
 *
 * @example
 * const outgoing = await outgoingOf("/v1/models", { method: "GET" });
 */
export async function outgoingOf(
  input: Request | string,
  init: { method?: string; headers?: HeadersInit; body?: ReplayableBody } = {},
): Promise<Outgoing> {
  if (typeof input === "string") {
    if (!input.startsWith("/") || input.startsWith("//"))
      throw invalidOption("path", "a path starting with one `/`", input);
    const body = init.body instanceof ArrayBuffer ? new Uint8Array(init.body) : (init.body ?? null);
    return { path: input, method: init.method ?? "GET", headers: cleaned(init.headers), body };
  }
  const url = new URL(input.url);
  const hasBody = input.body !== null && input.method !== "GET" && input.method !== "HEAD";
  const body = hasBody ? new Uint8Array(await input.arrayBuffer()) : null;
  return {
    path: `${url.pathname}${url.search}`,
    method: input.method,
    headers: cleaned(input.headers),
    body,
  };
}

function cleaned(given: HeadersInit | undefined): Headers {
  const headers = new Headers(given);
  for (const name of HOP_HEADERS) headers.delete(name);
  return headers;
}
