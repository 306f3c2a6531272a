import type { IncomingMessage, ServerResponse } from "node:http";

const MAX_BODY = 8 * 1024 * 1024;
/** Response headers that describe one hop, not the content; the gateway's own server sets its own. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "date"]);

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY) throw new Error("Request body too large");
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function sendError(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: { message, type: "upstream_error", code: "bad_gateway" } });
  res.writeHead(status, { "content-type": "application/json" }).end(body);
}

/** Waits until the response can take more, or has closed (a client that left never drains). */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  if (res.destroyed || res.writableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Options of {@link forward}. */
export interface ForwardOptions {
  /** Base URL of the OpenAI-compatible server, e.g. `http://127.0.0.1:8000`. */
  readonly upstream: string;
  /** Aborts the upstream call: pass a signal that fires when the client goes away. */
  readonly signal: AbortSignal;
  /** Key sent upstream as `Authorization: Bearer`; the client's own key is never forwarded. */
  readonly apiKey?: string;
}

/**
 * Forwards one OpenAI-style request to the upstream server and streams the answer back byte for byte
 * (SSE included), respecting back-pressure. When `signal` aborts, the upstream call is cancelled, so a
 * client that leaves frees its upstream sequence at once. The FIFO gateway's proxy.
 *
 * @example
 * app.post("/v1/chat/completions", (req, res) =>
 *   forward(req, res, { upstream: "http://127.0.0.1:8000", signal: controller.signal }));
 */
export async function forward(
  req: IncomingMessage,
  res: ServerResponse,
  options: ForwardOptions,
): Promise<void> {
  try {
    const body = await readBody(req);
    const headers: Record<string, string> = {
      "content-type": req.headers["content-type"] ?? "application/json",
      accept: req.headers.accept ?? "*/*",
      "accept-encoding": "identity",
    };
    if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`;
    const upstream = await fetch(new URL(req.url ?? "/", options.upstream), {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : new Uint8Array(body),
      signal: options.signal,
    });
    const passed: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name)) passed[name] = value;
    });
    res.writeHead(upstream.status, passed);
    if (upstream.body !== null) {
      for await (const chunk of upstream.body) {
        if (res.destroyed) break;
        if (!res.write(chunk)) await drainedOrClosed(res);
      }
    }
    res.end();
  } catch (error) {
    if (options.signal.aborted) {
      res.destroy();
      return;
    }
    sendError(res, 502, `Upstream request failed: ${(error as Error).message}`);
  }
}
