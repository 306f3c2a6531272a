import { writeFile } from "node:fs/promises";
import {
  checkOutputPath,
  demoScenario,
  describeScenario,
  formatDuration,
  generateWorkload,
  loadScenarioFile,
  type ReportInput,
  type ResolvedScenario,
  type RunResult,
  renderComparison,
  renderHtmlReport,
  resolveScenario,
  tableLegend,
} from "@llm-scheduler/simulator";
import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";
import { startLiveDashboard, untilDismissed } from "./live-dashboard.js";
import { runPhase } from "./phase.js";
import { checkUpstream, DemoError } from "./preflight.js";
import type { PhaseProgress } from "./progress.js";
import { progressWriter } from "./progress-writer.js";
import { startScheduledGateway } from "./scheduled-gateway.js";

/** Options of {@link runDemo}; the `pnpm demo` flags. */
export interface DemoOptions {
  /** How long chat users arrive, ms; the built-in batch flood is sized to match. @default 15_000 */
  readonly durationMs?: number;
  /** Seed of the workload. @default the scenario's (1 for the built-in one) */
  readonly seed?: number;
  /** A scenario file (see the simulator's README) instead of the built-in demo workload. */
  readonly scenarioFile?: string;
  /** An OpenAI-compatible server (vLLM, Ollama) instead of the simulated one. */
  readonly upstreamUrl?: string;
  /** `model` of each request (a real server needs one it serves). @default "sim-model" */
  readonly model?: string;
  /** Key the gateways send upstream, for servers that want one. */
  readonly upstreamKey?: string;
  /** Where the HTML report goes. @default "demo-report.html" in the working directory */
  readonly reportPath?: string;
  /** Where text goes. @default process.stdout */
  readonly write?: (text: string) => void;
  /** Show live progress on one rewritten line (a terminal) or as a line every two seconds. @default stdout is a TTY */
  readonly interactive?: boolean;
  /** The terminal's width, read at each update; the progress line never gets wider. @default process.stdout.columns, else 80 */
  readonly columns?: () => number | undefined;
  /**
   * After the report, keep the live dashboard up until Enter, the end of `input` or Ctrl-C; otherwise it
   * closes with the run. @default `input` and stdout are both a terminal
   */
  readonly holdDashboard?: boolean;
  /** What is read while the dashboard is held. @default process.stdin */
  readonly input?: NodeJS.ReadableStream & { readonly isTTY?: boolean };
}

/** What {@link runDemo} measured and wrote. */
export interface DemoOutcome {
  readonly scenario: ResolvedScenario;
  readonly fifo: RunResult;
  readonly scheduled: RunResult;
  readonly table: string;
  readonly reportPath: string;
}

/**
 * The durations the demo accepts: it replays the workload in real time, twice, so from one second (a
 * few requests) to one hour (two hours of waiting); longer runs belong to `pnpm simulate`.
 *
 * @example
 * if (ms > demoDurationMs.max) console.log("use pnpm simulate for this one");
 */
export const demoDurationMs = { min: 1_000, max: 3_600_000 } as const;

async function scenarioFor(options: DemoOptions): Promise<ResolvedScenario> {
  const overrides = { seed: options.seed, durationMs: options.durationMs };
  if (options.scenarioFile === undefined) return resolveScenario(demoScenario(overrides));
  const { resolved } = await loadScenarioFile(options.scenarioFile, overrides);
  if (resolved.durationMs > demoDurationMs.max) {
    throw new TypeError(
      `${options.scenarioFile} lasts ${formatDuration(resolved.durationMs)}, and the demo replays it in real time, twice: ` +
        `pass --duration (at most 1h), or run it in virtual time with pnpm simulate ${options.scenarioFile}`,
    );
  }
  return resolved;
}

/** Waits until the simulated server has let go of every request of the previous phase. */
async function quiet(sim: Upstream | undefined): Promise<void> {
  if (sim === undefined) return;
  for (let i = 0; i < 100; i++) {
    const { inFlight, queued } = sim.stats();
    if (inFlight === 0 && queued === 0) break;
    await new Promise((done) => setTimeout(done, 50));
  }
  sim.resetStats();
}

/** A run in which the upstream answered nothing at all measured nothing: say so instead of a table. */
function nothingAnswered(upstream: string, results: readonly RunResult[]): void {
  for (const result of results) {
    const sent = result.interactive.requests + result.batch.items;
    if (sent === 0 || result.interactive.answered + result.batch.completed > 0) continue;
    throw new DemoError(
      `no request was answered in the ${result.label} run: the upstream at ${upstream} stopped answering or refused every request`,
    );
  }
}

/** Everything that can be checked before the long run: the scenario, the report path, the upstream. */
async function preflight(options: DemoOptions): Promise<{ scenario: ResolvedScenario; reportPath: string }> {
  const scenario = await scenarioFor(options);
  const reportPath = await checkOutputPath("--report", options.reportPath ?? "demo-report.html");
  if (options.upstreamUrl !== undefined) {
    await checkUpstream(options.upstreamUrl, { model: options.model, key: options.upstreamKey });
  }
  return { scenario, reportPath };
}

async function writeReport(
  path: string,
  input: Pick<ReportInput, "scenario" | "results" | "table">,
  server: string,
): Promise<void> {
  const notes = [`Real time, over HTTP: clients -> a FIFO gateway, or @llm-scheduler/gateway -> ${server}.`];
  const title = "llm-scheduler demo: FIFO gateway against llm-scheduler";
  await writeFile(path, renderHtmlReport({ ...input, title, notes }));
}

/**
 * `pnpm demo`: starts the simulated LLM server (unless `upstreamUrl` is given), replays the same mixed
 * workload twice in real time, once through a plain FIFO gateway and once through
 * `@llm-scheduler/gateway` (`createGateway()`, configured in code), prints both side by side and writes an HTML report with charts.
 *
 * @example
 * const { fifo, scheduled, reportPath } = await runDemo({ durationMs: 10_000 });
 */
export async function runDemo(options: DemoOptions = {}): Promise<DemoOutcome> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const progress = progressWriter({
    write,
    interactive: options.interactive ?? process.stdout.isTTY === true,
    columns: options.columns ?? (() => process.stdout.columns),
  });
  const { scenario, reportPath } = await preflight(options);
  const input = options.input ?? process.stdin;
  const hold = options.holdDashboard ?? (input.isTTY === true && process.stdout.isTTY === true);
  const sim =
    options.upstreamUrl === undefined
      ? await startUpstream({ ...scenario.upstream, seed: scenario.seed, port: 0 })
      : undefined;
  const upstream = options.upstreamUrl ?? sim!.url;
  // The llm-scheduler gateway, and the live page of its scheduler, up from the start (idle while FIFO runs).
  const { model, upstreamKey } = options;
  const gateway = await startScheduledGateway({ scenario, upstream, model, upstreamKey });
  const dashboard = await startLiveDashboard(gateway.scheduler);
  try {
    write(`${describeScenario(scenario)}\n`);
    write(`upstream: ${sim === undefined ? upstream : `simulated LLM server at ${upstream}`}\n`);
    write(`live dashboard of the llm-scheduler gateway (busy in the second run): ${dashboard.url}\n\n`);
    const workload = generateWorkload(scenario);
    const phase = { scenario, workload, upstream, model, upstreamKey };
    const onProgress = (state: PhaseProgress) => progress.update(state);
    const fifo = await runPhase({ ...phase, gateway: "fifo", onProgress });
    progress.end();
    await quiet(sim);
    const scheduled = await runPhase({ ...phase, gateway: "scheduler", onProgress, scheduled: gateway });
    progress.end();
    nothingAnswered(upstream, [fifo, scheduled]);
    const table = renderComparison(scenario, [fifo, scheduled]);
    write(`\n${table}\n\n${tableLegend}\n`);
    const server = sim === undefined ? upstream : "the simulated LLM server";
    await writeReport(reportPath, { scenario, results: [fifo, scheduled], table }, server);
    write(`\nHTML report: ${reportPath}\n`);
    if (hold) {
      write(`live dashboard still at ${dashboard.url}; press Enter or Ctrl-C to exit\n`);
      await untilDismissed(input);
    }
    return { scenario, fifo, scheduled, table, reportPath };
  } finally {
    await dashboard.close();
    await gateway.close();
    await sim?.close();
  }
}
