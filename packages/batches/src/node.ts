/** The parts of Node's `IncomingMessage` that {@link nodeListener} reads (typed here, nothing imported). */
export interface NodeRequestLike extends AsyncIterable<Uint8Array> {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Express sets it under a mount path; the full path is then used. */
  readonly originalUrl?: string;
}

/** The parts of Node's `ServerResponse` that {@link nodeListener} uses. */
export interface NodeResponseLike {
  writeHead(status: number, headers: Record<string, string | string[]>): unknown;
  write(chunk: Uint8Array): boolean;
  end(): unknown;
  once(event: "drain" | "close", listener: () => void): unknown;
  readonly destroyed?: boolean;
}

function headersOf(request: NodeRequestLike): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name.startsWith(":")) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}

/** A web `Request` whose body is pulled from the Node request one chunk at a time (real backpressure). */
function webRequest(request: NodeRequestLike): Request {
  const method = request.method ?? "GET";
  const host = typeof request.headers.host === "string" ? request.headers.host : "localhost";
  const url = new URL(request.originalUrl ?? request.url ?? "/", `http://${host}`);
  const init: RequestInit & { duplex?: "half" } = { method, headers: headersOf(request) };
  if (method !== "GET" && method !== "HEAD") {
    const chunks = request[Symbol.asyncIterator]();
    init.body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const { done, value } = await chunks.next();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        async cancel() {
          await chunks.return?.();
        },
      },
      { highWaterMark: 0 },
    );
    init.duplex = "half";
  }
  return new Request(url, init);
}

async function send(response: Response, res: NodeResponseLike): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (response.body !== null) {
    const reader = response.body.getReader();
    let closed = false;
    res.once("close", () => {
      closed = true;
      reader.cancel().catch(() => {});
    });
    for (let next = await reader.read(); !next.done && !closed; next = await reader.read()) {
      if (!res.write(next.value)) await new Promise<void>((resolve) => res.once("drain", resolve));
    }
  }
  res.end();
}

/**
 * A Node `(req, res)` listener (for `http.createServer`, Express, Koa's `app.callback()` wrappers) that
 * serves a web handler such as `batches.fetch`: the request body is read as the handler consumes it
 * and the response is written with backpressure, so a 200 MB upload or output file is never held whole.
 *
 * @example
 * app.use(["/v1/files", "/v1/batches"], nodeListener((request) => batches.fetch(request))); // Express
 */
export function nodeListener(
  handler: (request: Request) => Promise<Response>,
): (req: NodeRequestLike, res: NodeResponseLike) => void {
  return function serveWeb(req, res) {
    let request: Request;
    try {
      request = webRequest(req);
    } catch {
      res.writeHead(400, { "content-type": "application/json" });
      res.write(
        new TextEncoder().encode('{"error":{"message":"Bad request","type":"invalid_request_error"}}'),
      );
      res.end();
      return;
    }
    handler(request)
      .then((response) => send(response, res))
      .catch(() => {
        if (!res.destroyed) res.end();
      });
  };
}
