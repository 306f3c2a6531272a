import {
  Driver,
  type GatewayKind,
  Recorder,
  type ResolvedScenario,
  type RunResult,
  reservedOf,
  schedulerLoad,
  summarize,
  type WaitSink,
  type Workload,
} from "@llm-scheduler/simulator";
import { type GatewayServer, startFifoGateway } from "./gateways.js";
import { createHttpTransport } from "./http-transport.js";
import { keysFor } from "./keys.js";
import { WaitProbe } from "./probe.js";
import { type PhaseProgress, phaseProgress } from "./progress.js";
import { realClock } from "./real-clock.js";
import { followWaits, type ScheduledGateway, startScheduledGateway } from "./scheduled-gateway.js";

/** Options of {@link runPhase}. */
export interface PhaseOptions {
  readonly gateway: GatewayKind;
  /** Name of the run in the table. @default "FIFO" or "llm-scheduler" */
  readonly label?: string;
  readonly scenario: ResolvedScenario;
  readonly workload: Workload;
  /** Base URL of the upstream server. */
  readonly upstream: string;
  /** `model` of each request. @default "sim-model" */
  readonly model?: string;
  /** Key the gateway sends upstream. */
  readonly upstreamKey?: string;
  /** Load samples for the charts, ms. @default 100 */
  readonly sampleEveryMs?: number;
  /**
   * The llm-scheduler gateway, e.g. one whose live dashboard is already up; the caller closes it.
   * @default a new one from the scenario, closed at the end of the phase
   */
  readonly scheduled?: ScheduledGateway;
  /** Receives where the phase stands about four times a second, and once at the end. */
  readonly onProgress?: (progress: PhaseProgress) => void;
  /** Fails the phase if it has not finished by then, ms. @default 5 * durationMs + 60_000 */
  readonly timeoutMs?: number;
}

async function startGateway(options: PhaseOptions, sink: WaitSink) {
  const { scenario, upstream, upstreamKey } = options;
  if (options.gateway === "fifo") {
    const fifoOptions = { upstream, keys: keysFor(scenario), probe: new WaitProbe(sink), upstreamKey };
    return { server: await startFifoGateway(fifoOptions, scenario.maxConcurrency), scheduler: undefined };
  }
  const gateway =
    options.scheduled ??
    (await startScheduledGateway({ scenario, upstream, upstreamKey, model: options.model }));
  const { scheduler } = gateway;
  const stopFollowing = followWaits(scheduler, sink);
  const server: GatewayServer = {
    url: gateway.url,
    snapshot: () => schedulerLoad(scheduler),
    close: async () => {
      stopFollowing();
      if (options.scheduled === undefined) await gateway.close();
    },
  };
  return { server, scheduler };
}

function untilFinished(driver: Driver, server: GatewayServer, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      driver.stop();
      reject(new Error(`The run did not finish within ${timeoutMs} ms (${server.url})`));
    }, timeoutMs);
    driver.onFinished(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Replays a workload in real time over HTTP through one gateway (the FIFO baseline or
 * `@llm-scheduler/gateway`) in front of `upstream`, with the same client behaviour as the virtual-time simulator,
 * and returns the same results.
 *
 * @example
 * const fifo = await runPhase({ gateway: "fifo", scenario, workload, upstream: sim.url });
 */
export async function runPhase(options: PhaseOptions): Promise<RunResult> {
  const { scenario, workload } = options;
  const label = options.label ?? (options.gateway === "fifo" ? "FIFO" : "llm-scheduler");
  // The gateway starts first; the run's clock starts with the recorder and the driver, just before sending.
  let current: Recorder | undefined;
  const sink: WaitSink = {
    arrived: (priority) => current?.arrived(priority),
    queueWait: (priority, waitMs, started) => current?.queueWait(priority, waitMs, started),
    released: (priority) => current?.released(priority),
  };
  const { server, scheduler } = await startGateway(options, sink);
  const capacity = scenario.maxConcurrency;
  const reserved = scheduler === undefined ? {} : reservedOf(scheduler);
  const recorder = new Recorder(realClock, { capacity, reserved });
  current = recorder;
  const transport = createHttpTransport({ gateway: server.url, model: options.model });
  const driver = new Driver({ scenario, workload, clock: realClock, transport, recorder });
  const sampler = setInterval(() => recorder.sample(server.snapshot()), options.sampleEveryMs ?? 100);
  const reporter = setInterval(
    () => options.onProgress?.(phaseProgress(label, recorder, workload, server.snapshot(), capacity)),
    250,
  );
  try {
    recorder.sample(server.snapshot());
    driver.start();
    await untilFinished(driver, server, options.timeoutMs ?? 5 * scenario.durationMs + 60_000);
    recorder.sample(server.snapshot());
    options.onProgress?.(phaseProgress(label, recorder, workload, server.snapshot(), capacity));
  } finally {
    clearInterval(sampler);
    clearInterval(reporter);
    await server.close();
  }
  return summarize(label, recorder, scenario);
}
