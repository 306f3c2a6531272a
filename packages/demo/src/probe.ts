import type { IncomingMessage, ServerResponse } from "node:http";
import type { WaitSink } from "@llm-scheduler/simulator";

interface Visit {
  readonly priority: string;
  readonly at: number;
  started: boolean;
}

/**
 * Measures each request's queue wait inside a gateway, the same way for both gateways: from the moment
 * the request reaches the gateway (`arrived`, the first middleware) to the moment it is sent upstream
 * (`started`, the route handler). A request whose response ends before it started (the client gave up,
 * or the gateway answered 429) is reported with the time it had waited, marked as not started. A
 * request that started holds its slot until its response closes (`released`), as both gateways do.
 *
 * @example
 * app.use((req, res, next) => { probe.arrived(req, res, priorityOf(req)); next(); });
 * app.post("/v1/chat/completions", limiter, (req, res) => { probe.started(req); forward(req, res, ...); });
 */
export class WaitProbe {
  readonly #sink: WaitSink;
  readonly #visits = new WeakMap<IncomingMessage, Visit>();

  constructor(sink: WaitSink) {
    this.#sink = sink;
  }

  arrived(req: IncomingMessage, res: ServerResponse, priority: string): void {
    const visit: Visit = { priority, at: performance.now(), started: false };
    this.#visits.set(req, visit);
    this.#sink.arrived(priority);
    res.once("close", () => {
      if (visit.started) this.#sink.released(priority);
      else this.#sink.queueWait(priority, performance.now() - visit.at, false);
    });
  }

  started(req: IncomingMessage): void {
    const visit = this.#visits.get(req);
    if (visit === undefined || visit.started) return;
    visit.started = true;
    this.#sink.queueWait(visit.priority, performance.now() - visit.at, true);
  }
}
