import type { Scheduler } from "@llm-scheduler/core";
import { resolveConfig } from "@llm-scheduler/gateway";
import { serveGateway } from "@llm-scheduler/gateway/node";
import type { ResolvedScenario, WaitSink } from "@llm-scheduler/simulator";
import { keysFor } from "./keys.js";

/** Options of {@link startScheduledGateway}. */
export interface ScheduledGatewayOptions {
  readonly scenario: ResolvedScenario;
  /** Base URL of the upstream server. */
  readonly upstream: string;
  /** The model the clients ask for, the gateway's only model. @default "sim-model" */
  readonly model?: string;
  /** Key the gateway sends upstream (for a real vLLM or Ollama that wants one). */
  readonly upstreamKey?: string;
}

/** `@llm-scheduler/gateway` on 127.0.0.1 (a free port), with the scheduler of its one model. */
export interface ScheduledGateway {
  readonly url: string;
  /** The scheduler of the demo's model inside the gateway: its queues, for the live dashboard and the charts. */
  readonly scheduler: Scheduler;
  close(): Promise<void>;
}

/**
 * The configuration an operator would write for the demo, built in code: one model on the upstream,
 * the scenario's scheduler options (priorities, limit, tenants) under it, and one API key per tenant
 * with its priority. No admin key: the gateway's own `/metrics` and `/dashboard` stay closed.
 */
function configOf(options: ScheduledGatewayOptions) {
  const keys = [...keysFor(options.scenario)].map(([key, entry]) => ({ key, ...entry }));
  const model = {
    ...options.scenario.scheduler,
    upstreams: [options.upstream],
    ...(options.upstreamKey === undefined ? {} : { upstreamApiKey: options.upstreamKey }),
  };
  return {
    listen: { host: "127.0.0.1", port: 0 },
    models: { [options.model ?? "sim-model"]: model },
    keys,
    // the demo's own output is the table; only an error of the gateway is worth a line
    log: { level: "error", access: false },
    // closed once both runs are over: whatever still runs then (a run that failed) is not waited for long
    drainTimeoutMs: 1_000,
  };
}

/**
 * Serves the ready-to-run gateway (`createGateway()` through `serveGateway()`) for the demo's
 * llm-scheduler run: clients send their tenant's key, the gateway picks the priority and tenant from it.
 *
 * @example
 * const gateway = await startScheduledGateway({ scenario, upstream: sim.url });
 * const dashboard = await startLiveDashboard(gateway.scheduler);
 */
export async function startScheduledGateway(options: ScheduledGatewayOptions): Promise<ScheduledGateway> {
  const running = await serveGateway(await resolveConfig(configOf(options)));
  const scheduler = running.gateway.models().get(options.model ?? "sim-model")?.scheduler;
  if (scheduler === undefined) throw new Error("the gateway did not start the demo's model");
  return { url: running.url, scheduler, close: () => running.close() };
}

/**
 * Reports each request's path through the gateway's scheduler to `sink`, as the FIFO gateway's probe
 * does: arrival, queue wait (from the scheduler's `queued`, `started` and `rejected` events) and the
 * release of its slot (`completed`, `failed`). Returns what stops it.
 *
 * @example
 * const stop = followWaits(gateway.scheduler, recorder);
 */
export function followWaits(scheduler: Scheduler, sink: WaitSink): () => void {
  const seen = new Set<string>();
  const arrive = (id: string, priority: string): void => {
    if (seen.has(id)) return;
    seen.add(id);
    sink.arrived(priority);
  };
  const release = ({ id, priority }: { id: string; priority: string }): void => {
    if (seen.delete(id)) sink.released(priority);
  };
  const stops = [
    scheduler.on("queued", ({ id, priority }) => arrive(id, priority)),
    scheduler.on("started", ({ id, priority, waitMs }) => {
      arrive(id, priority);
      sink.queueWait(priority, waitMs, true);
    }),
    scheduler.on("rejected", ({ id, priority, waitMs }) => {
      arrive(id, priority);
      seen.delete(id);
      sink.queueWait(priority, waitMs, false);
    }),
    scheduler.on("completed", release),
    scheduler.on("failed", release),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
