// Forwards one request upstream and streams the answer back unchanged.
import type { IncomingMessage, ServerResponse } from "node:http";

/** Response headers about one hop, not the content; Node's server sets its own. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "date"]);

async function bodyOf(req: IncomingMessage): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

/** Waits until the response can take more, or has closed. */
function drained(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done).on("close", done);
  });
}

/**
 * Sends `req` to `upstreamUrl + req.url` and pipes the answer to `res` byte for byte (SSE streams
 * included), with back-pressure. `signal` cancels the upstream call: pass the scheduler's signal, which
 * aborts when the client disconnects, so the model stops generating for nobody.
 */
export async function forward(
  req: IncomingMessage,
  res: ServerResponse,
  upstreamUrl: string,
  upstreamKey: string | undefined,
  signal: AbortSignal,
): Promise<void> {
  try {
    const headers: Record<string, string> = {
      "content-type": req.headers["content-type"] ?? "application/json",
      accept: req.headers.accept ?? "*/*",
      "accept-encoding": "identity", // fetch would decode gzip; ask for the bytes as they are
    };
    if (upstreamKey !== undefined) headers.authorization = `Bearer ${upstreamKey}`;
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const upstream = await fetch(`${upstreamUrl}${req.url}`, {
      method: req.method,
      headers,
      body: hasBody ? await bodyOf(req) : undefined,
      signal,
    });
    const passed: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name)) passed[name] = value;
    });
    res.writeHead(upstream.status, passed);
    if (upstream.body !== null) {
      for await (const chunk of upstream.body) {
        if (res.destroyed) break; // leaving the loop cancels the upstream body
        if (!res.write(chunk)) await drained(res);
      }
    }
    res.end();
  } catch (error) {
    if (signal.aborted || res.headersSent) {
      res.destroy(error as Error); // with its error: the middleware releases the slot at once
      return;
    }
    const message = `The upstream server could not be reached: ${(error as Error).message}`;
    res.writeHead(502, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message, type: "upstream_error", code: "bad_gateway", param: null } }));
  }
}
