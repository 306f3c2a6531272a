import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { FifoLimiter, type LoadSnapshot } from "@llm-scheduler/simulator";
import express, { type NextFunction, type Request, type Response } from "express";
import { bearerOf, type KeyEntry } from "./keys.js";
import type { WaitProbe } from "./probe.js";
import { forward } from "./proxy.js";

/** A gateway listening on 127.0.0.1, with its load readable at any time. */
export interface GatewayServer {
  readonly url: string;
  snapshot(): LoadSnapshot;
  close(): Promise<void>;
}

/** What the FIFO gateway needs. */
export interface GatewayOptions {
  /** Base URL of the upstream server. */
  readonly upstream: string;
  /** API key table: who each key is and which priority it gets. */
  readonly keys: ReadonlyMap<string, KeyEntry>;
  readonly probe: WaitProbe;
  /** Key sent to the upstream server (for a real vLLM or Ollama that wants one). */
  readonly upstreamKey?: string;
}

const ROUTES = ["/v1/chat/completions", "/v1/completions"];

/** Looks the API key up; unknown keys get 401 in OpenAI's shape. Notes the arrival for the wait probe. */
function authenticate(options: GatewayOptions) {
  return function authenticate(req: Request, res: Response, next: NextFunction): void {
    const entry = options.keys.get(bearerOf(req.get("authorization")) ?? "");
    if (entry === undefined) {
      res.status(401).json({
        error: { message: "Unknown API key", type: "invalid_request_error", code: "invalid_api_key" },
      });
      return;
    }
    res.locals.key = entry;
    options.probe.arrived(req, res, entry.priority);
    next();
  };
}

async function listen(app: express.Express): Promise<{ server: Server; url: string }> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}` };
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

/**
 * What many gateways do today: a concurrency limit and one FIFO queue for everyone. A waiting request
 * whose client goes away leaves the queue, and a running one is cancelled upstream.
 *
 * @example
 * const gateway = await startFifoGateway({ upstream: sim.url, keys, probe }, 8);
 */
export async function startFifoGateway(
  options: GatewayOptions,
  maxConcurrency: number,
): Promise<GatewayServer> {
  const fifo = new FifoLimiter(maxConcurrency);
  const app = express();
  app.post(ROUTES, authenticate(options), function fifoGateway(req: Request, res: Response) {
    const { priority } = res.locals.key as KeyEntry;
    const controller = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) controller.abort(new Error("The client closed the connection"));
    });
    fifo.acquire(priority, controller.signal).then(
      (release) => {
        res.once("close", release);
        if (res.destroyed) return release();
        options.probe.started(req);
        void forward(req, res, {
          upstream: options.upstream,
          signal: controller.signal,
          apiKey: options.upstreamKey,
        });
      },
      () => {}, // the client left while queued; the probe has noted it
    );
  });
  const { server, url } = await listen(app);
  return { url, snapshot: () => fifo.snapshot(), close: closer(server) };
}
