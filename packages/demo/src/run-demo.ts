import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  demoScenario,
  describeScenario,
  generateWorkload,
  loadScenarioFile,
  type ResolvedScenario,
  type RunResult,
  renderComparison,
  renderHtmlReport,
  resolveScenario,
  tableLegend,
} from "@llm-scheduler/simulator";
import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";
import { runPhase } from "./phase.js";

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
}

/** What {@link runDemo} measured and wrote. */
export interface DemoOutcome {
  readonly scenario: ResolvedScenario;
  readonly fifo: RunResult;
  readonly scheduled: RunResult;
  readonly table: string;
  readonly reportPath: string;
}

async function scenarioFor(options: DemoOptions): Promise<ResolvedScenario> {
  const overrides = { seed: options.seed, durationMs: options.durationMs };
  if (options.scenarioFile !== undefined)
    return (await loadScenarioFile(options.scenarioFile, overrides)).resolved;
  return resolveScenario(demoScenario(overrides));
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

function progressWriter(write: (text: string) => void, interactive: boolean) {
  let lastPrinted = 0;
  return {
    line(text: string): void {
      if (interactive) {
        write(`\r${text}\u001b[K`);
      } else if (performance.now() - lastPrinted >= 2_000) {
        lastPrinted = performance.now();
        write(`${text}\n`);
      }
    },
    end(text: string): void {
      write(interactive ? `\r${text}\u001b[K\n` : `${text}\n`);
      lastPrinted = 0;
    },
  };
}

/**
 * `pnpm demo`: starts the simulated LLM server (unless `upstreamUrl` is given), replays the same mixed
 * workload twice in real time, once through a plain FIFO gateway and once through an Express gateway
 * with llm-scheduler, prints both side by side and writes an HTML report with charts.
 *
 * @example
 * const { fifo, scheduled, reportPath } = await runDemo({ durationMs: 10_000 });
 */
export async function runDemo(options: DemoOptions = {}): Promise<DemoOutcome> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const progress = progressWriter(write, options.interactive ?? process.stdout.isTTY === true);
  const scenario = await scenarioFor(options);
  const sim =
    options.upstreamUrl === undefined
      ? await startUpstream({ ...scenario.upstream, seed: scenario.seed, port: 0 })
      : undefined;
  const upstream = options.upstreamUrl ?? sim!.url;
  try {
    write(`${describeScenario(scenario)}\n`);
    write(`upstream: ${sim === undefined ? upstream : `simulated LLM server at ${upstream}`}\n\n`);
    const workload = generateWorkload(scenario);
    const phase = { scenario, workload, upstream, model: options.model, upstreamKey: options.upstreamKey };
    let last = "";
    const onProgress = (line: string) => {
      last = line;
      progress.line(line);
    };
    const fifo = await runPhase({ ...phase, gateway: "fifo", onProgress });
    progress.end(last);
    await quiet(sim);
    const onGateway = ({ dashboardUrl }: { dashboardUrl?: string }) => {
      if (dashboardUrl !== undefined) write(`live dashboard while this phase runs: ${dashboardUrl}\n`);
    };
    const scheduled = await runPhase({ ...phase, gateway: "scheduler", onProgress, onGateway });
    progress.end(last);
    const table = renderComparison(scenario, [fifo, scheduled]);
    write(`\n${table}\n\n${tableLegend}\n`);
    const reportPath = resolve(options.reportPath ?? "demo-report.html");
    const notes = [
      `Real time, over HTTP: clients -> Express gateway (FIFO, or schedulerMiddleware) -> ${sim === undefined ? upstream : "the simulated LLM server"}.`,
    ];
    const title = "llm-scheduler demo: FIFO gateway against llm-scheduler";
    await writeFile(
      reportPath,
      renderHtmlReport({ title, scenario, results: [fifo, scheduled], table, notes }),
    );
    write(`\nHTML report: ${reportPath}\n`);
    return { scenario, fifo, scheduled, table, reportPath };
  } finally {
    await sim?.close();
  }
}
