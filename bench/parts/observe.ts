// Part 6: what observing costs: `collectMetrics` and `traceScheduler`, each alone, on `run()` throughput
// of no-op tasks, against the bare scheduler in the same rounds.
import type { Scheduler } from "@llm-scheduler/core";
import { traceScheduler } from "@llm-scheduler/otel";
import { collectMetrics } from "@llm-scheduler/prometheus";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { Registry } from "prom-client";
import { coreScheduler, isInteractive, noop, TENANTS } from "../lib/contenders.js";
import { num, ratio, spread } from "../lib/format.js";
import type { Part } from "../lib/part.js";
import type { PartReport } from "../lib/report.js";
import { median, summarize } from "../lib/stats.js";
import { timeIt } from "../lib/timing.js";

const METRICS_GOAL = 0.9;

/** Counts finished spans and drops them: the SDK's cost without an exporter's I/O. */
class CountingExporter implements SpanExporter {
  spans = 0;
  export(spans: Parameters<SpanExporter["export"]>[0], done: Parameters<SpanExporter["export"]>[1]): void {
    this.spans += spans.length;
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

const exporter = new CountingExporter();
// The batching processor production setups use, with room for a whole run between flushes.
const provider = new BasicTracerProvider({
  spanProcessors: [new BatchSpanProcessor(exporter, { maxQueueSize: 100_000, maxExportBatchSize: 1_000 })],
});
const sdkTracer = provider.getTracer("bench");

type Run = (i: number) => Promise<unknown>;

interface Variant {
  readonly name: string;
  /** Runs with the AsyncLocalStorage context manager on (what tracing needs; it slows every promise). */
  readonly contextManager?: boolean;
  /** Sets up one run on a fresh scheduler; `check` confirms afterwards that the work was observed. */
  setUp(scheduler: Scheduler, size: number): { run: Run; check(): Promise<void> | void };
}

const optionsOf = (i: number) => ({
  priority: isInteractive(i) ? "interactive" : "batch",
  tenant: TENANTS[i & 15]!,
});
const plainRun =
  (scheduler: Scheduler): Run =>
  (i) =>
    scheduler.run(noop, optionsOf(i));

function scraped(registry: Registry, size: number) {
  return async () => {
    const text = await registry.metrics();
    const counted = [...text.matchAll(/^llm_scheduler_requests_total\{[^}]*\} (\d+)$/gm)].reduce(
      (sum, match) => sum + Number(match[1]),
      0,
    );
    if (counted !== size) throw new Error(`collectMetrics counted ${counted} requests of ${size}`);
  };
}

function traced(tracer: ReturnType<typeof trace.getTracer>, counts: boolean): Variant["setUp"] {
  return (scheduler, size) => {
    const tracedScheduler = traceScheduler(scheduler, { tracer });
    const before = exporter.spans;
    return {
      run: (i) => tracedScheduler.run(noop, optionsOf(i)),
      check: async () => {
        await provider.forceFlush();
        if (counts && exporter.spans - before !== 2 * size) throw new Error("traceScheduler lost spans");
      },
    };
  };
}

const variants: Variant[] = [
  { name: "bare scheduler", setUp: (scheduler) => ({ run: plainRun(scheduler), check: () => {} }) },
  {
    name: "collectMetrics",
    setUp: (scheduler, size) => {
      const registry = new Registry();
      collectMetrics(scheduler, { registry });
      return { run: plainRun(scheduler), check: scraped(registry, size) };
    },
  },
  {
    name: "collectMetrics, tenantLabel top 8",
    setUp: (scheduler, size) => {
      const registry = new Registry();
      collectMetrics(scheduler, { registry, tenantLabel: { top: 8 } });
      return { run: plainRun(scheduler), check: scraped(registry, size) };
    },
  },
  { name: "traceScheduler, no SDK installed", setUp: traced(trace.getTracer("bench"), false) },
  {
    name: "bare scheduler, context manager on",
    contextManager: true,
    setUp: (scheduler) => ({ run: plainRun(scheduler), check: () => {} }),
  },
  {
    name: "traceScheduler, SDK (2 spans per request)",
    contextManager: true,
    setUp: traced(sdkTracer, true),
  },
];

/** The variant each one is compared with: the bare scheduler with the same context manager. */
const baselineOf = (index: number): number => (variants[index]!.contextManager === true ? 4 : 0);

async function once(variant: Variant, size: number): Promise<number> {
  if (variant.contextManager === true) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  }
  try {
    return await measure(variant, size);
  } finally {
    context.disable();
  }
}

async function measure(variant: Variant, size: number): Promise<number> {
  const scheduler = coreScheduler(size);
  const { run, check } = variant.setUp(scheduler, size);
  const elapsed = await timeIt(() => Promise.all(Array.from({ length: size }, (_, i) => run(i))));
  await check();
  await scheduler.close();
  return (size / elapsed) * 1000;
}

export const run: Part = async ({ quick, runs: asked, log }) => {
  const size = quick ? 2_000 : 20_000;
  const runs = asked ?? (quick ? 2 : 7);
  const warmups = quick ? 1 : 2;
  const rates: number[][] = variants.map(() => []);
  for (let round = 0; round < warmups + runs; round++) {
    for (let k = 0; k < variants.length; k++) {
      const index = (k + round) % variants.length; // rotate the order every round
      const rate = await once(variants[index]!, size);
      if (round >= warmups) rates[index]!.push(rate);
    }
    log(round < warmups ? `warm-up round ${round + 1} done` : `round ${round - warmups + 1}/${runs} done`);
  }
  return report(rates, size, runs, warmups);
};

function report(rates: number[][], size: number, runs: number, warmups: number): PartReport {
  const against = (index: number) => rates[baselineOf(index)]!;
  const ratios = rates.map((list, v) => median(list.map((rate, i) => rate / against(v)[i]!)));
  const costs = rates.map((list, v) => median(list.map((rate, i) => 1e6 / rate - 1e6 / against(v)[i]!)));
  const rows = variants.map((variant, index) => [
    variant.name,
    spread(summarize(rates[index]!)),
    baselineOf(index) === index ? "-" : ratio(ratios[index]!),
    baselineOf(index) === index ? "-" : `${num(costs[index]!, 2)} µs`,
  ]);
  const metrics = ratios[1]!;
  return {
    part: "observe",
    title: "Observing: what collectMetrics and traceScheduler cost on run() throughput",
    method: [
      `Each run creates a fresh scheduler (as in the throughput part: two priorities, 16 tenants, concurrency 8), attaches one observer, submits ${num(size)} no-op tasks at once and awaits them all.`,
      "collectMetrics: a prom-client registry, scraped after the run to check that every request was counted. traceScheduler: tasks go through traced.run(); with the OpenTelemetry SDK 2.12 (BasicTracerProvider, BatchSpanProcessor, an exporter that counts and drops) and the AsyncLocalStorage context manager, or with no SDK installed (the API's no-op tracer).",
      `${warmups} warm-up rounds, then ${runs} rounds; each round runs every variant once, in an order that rotates each round. All in one process.`,
      "Ratio and cost per request are medians over rounds of the same-round comparison with the bare scheduler; the SDK row is compared with the bare scheduler under the same context manager, which tracing needs and which slows every promise of the process by itself.",
    ],
    tables: [
      {
        title: "No-op tasks per second, median (min–max)",
        columns: ["observer", "tasks/s", "vs its bare baseline", "added per request"],
        rows,
      },
    ],
    goals: [
      {
        name: "collectMetrics throughput vs bare scheduler",
        target: `>= ${ratio(METRICS_GOAL)} (<= 10% overhead)`,
        measured: ratio(metrics),
        holds: metrics >= METRICS_GOAL,
      },
    ],
    notes: [
      "A real task waits for an upstream for milliseconds to minutes: the per-request cost is what matters there, the ratio only on no-op tasks.",
    ],
    raw: {
      size,
      tasksPerSecond: Object.fromEntries(variants.map((variant, index) => [variant.name, rates[index]])),
    },
  };
}
