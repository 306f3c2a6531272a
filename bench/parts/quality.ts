// Part 5: scheduling quality in virtual time: the real core against FIFO and the non-preemptive ideal.
import { num, ratio } from "../lib/format.js";
import type { Part } from "../lib/part.js";
import type { Goal } from "../lib/report.js";
import { type Measures, measure } from "../quality/measures.js";
import { referenceStarts } from "../quality/reference.js";
import { type Outcome, simulateCore } from "../quality/simulate.js";
import { buildTrace, type Job, scenario } from "../quality/trace.js";
import {
  measureUtilization,
  UTILIZATION_COLUMNS,
  type UtilizationRow,
  utilizationTable,
} from "../quality/utilization.js";

const seconds = (ms: number): string => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : "never");

function measureOutcomes(trace: readonly Job[], outcomes: readonly Outcome[]): Measures {
  return measure(
    trace,
    outcomes.map((o) => o.start),
    outcomes.map((o) => (o.code === undefined ? undefined : o.end)),
  );
}

export const run: Part = async ({ quick, log }) => {
  const s = scenario(quick);
  const trace = buildTrace(s);
  const fifo = measure(trace, referenceStarts(trace, s.slots, "fifo"));
  const ideal = measure(trace, referenceStarts(trace, s.slots, "interactive-first"));
  const started = performance.now();
  const outcomes = await simulateCore(trace, { maxConcurrency: s.slots });
  const simulatedIn = performance.now() - started;
  log(`core simulated in ${num(simulatedIn)} ms of real time`);
  const core = measureOutcomes(trace, outcomes);
  // The same, with the batch lane's aging bound (maxWaitMs, 60 s by default) turned off.
  const noAging = measureOutcomes(
    trace,
    await simulateCore(trace, {
      maxConcurrency: s.slots,
      priorities: {
        interactive: { weight: 5, reserved: 1, queueTimeoutMs: 10_000, maxQueue: 1_000 },
        batch: { weight: 1, queueTimeoutMs: 600_000, maxQueue: 100_000, maxWaitMs: Number.POSITIVE_INFINITY },
      },
    }),
  );
  const utilization = await measureUtilization(quick);
  log(`simulated ${utilization.length} scheduler runs of the demo and day scenarios`);
  const interactiveCount = trace.filter((job) => job.kind === "interactive").length;
  const rows: Array<[string, Measures]> = [
    ["llm-scheduler (defaults)", core],
    ["llm-scheduler, batch aging off", noAging],
    ["FIFO (one queue, same slots)", fifo],
    ["ideal non-preemptive (interactive first)", ideal],
  ];
  const meanInteractive = (s.interactiveService[0] + s.interactiveService[1]) / 2;
  const interactiveLoad = meanInteractive / s.interactiveGapMs;
  const goals: Goal[] = [
    {
      name: "interactive p95 wait below FIFO's",
      target: "< FIFO",
      measured: `${seconds(core.interactive.p95)} vs ${seconds(fifo.interactive.p95)}`,
      holds: core.interactive.p95 < fifo.interactive.p95,
    },
    {
      name: `no interactive request refused (their load is about ${Math.round((100 * interactiveLoad) / s.slots)}% of the slots)`,
      target: "0 refused",
      measured: `${core.interactiveRefused} refused`,
      holds: core.interactiveRefused === 0,
    },
    {
      name: "no batch item refused (no batch starvation)",
      target: "0 refused",
      measured: `${core.batchRefused} refused, longest batch wait ${seconds(core.longestBatchWait)}`,
      holds: core.batchRefused === 0,
    },
    ...utilizationGoals(utilization),
  ];
  return {
    part: "quality",
    title: "Scheduling quality: a batch flood and chat traffic in virtual time",
    method: [
      `Trace (seed ${s.seed}): ${s.slots} slots; batch tenants ${s.floods.map((f) => `${f.tenant} (${s.batchPerTenant} items at ${seconds(f.at)})`).join(" and ")}, each item holding a slot ${seconds(s.batchService[0])}–${seconds(s.batchService[1])}; interactive requests from ${s.interactiveTenants} tenants arrive as a Poisson process (mean gap ${seconds(s.interactiveGapMs)}) until ${seconds(s.interactiveUntil)}, each holding a slot ${seconds(s.interactiveService[0])}–${seconds(s.interactiveService[1])}. ${num(trace.length)} requests, ${interactiveCount} of them interactive.`,
      "llm-scheduler: the real core with its default priorities (interactive weight 5, 1 reserved slot, 10 s queue timeout; batch weight 1, aging after 60 s) and maxConcurrency 8, driven by a VirtualClock: arrivals and completions are timers, and every promise reaction runs before time moves on. A second run turns the batch aging bound off (maxWaitMs Infinity), everything else the same.",
      "FIFO and the ideal are computed from the same trace: FIFO starts requests in arrival order (a plain concurrency limit); the ideal for a non-preemptive scheduler starts the longest-waiting interactive request whenever a slot frees, and batch only when no interactive request waits.",
      "A refused request's wait counts as its time in the queue until refused, so refusing never improves a percentile.",
    ],
    tables: [
      {
        title: "Queue wait of interactive requests, and batch progress",
        columns: [
          "schedule",
          "interactive p50",
          "p95",
          "p99",
          "max",
          "refused",
          "batch makespan",
          "longest batch wait",
        ],
        rows: rows.map(([label, m]) => [
          label,
          seconds(m.interactive.p50),
          seconds(m.interactive.p95),
          seconds(m.interactive.p99),
          seconds(m.interactive.max),
          `${m.interactiveRefused + m.batchRefused}`,
          seconds(m.batchMakespan),
          seconds(m.longestBatchWait),
        ]),
      },
      {
        title:
          "Slot use and batch makespan against the work-conserving ideal (simulator scenarios, virtual time)",
        columns: UTILIZATION_COLUMNS,
        rows: utilizationTable(utilization),
      },
      {
        title: "llm-scheduler against the references",
        columns: ["figure", "vs FIFO", "vs ideal"],
        rows: [
          [
            "interactive p95 wait",
            ratio(core.interactive.p95 / fifo.interactive.p95),
            ratio(core.interactive.p95 / Math.max(ideal.interactive.p95, 1)),
          ],
          [
            "batch makespan",
            ratio(core.batchMakespan / fifo.batchMakespan),
            ratio(core.batchMakespan / ideal.batchMakespan),
          ],
        ],
      },
    ],
    goals,
    notes: [
      "Ideal batch makespan: FIFO's, plus the chat slot-time the run served within its batch makespan beyond what FIFO served within its own, divided by the gateway's limit. Busy while queued: busy slot-time over limit x time while anything waited at the gateway; idle reserved: the part of that slot-time that was chat's reserved slots sitting free while no chat waited.",
      `The core ran ${num(trace.length)} requests through ${seconds(core.batchMakespan)} of virtual time in ${num(simulatedIn)} ms.`,
    ],
    raw: {
      scenario: s,
      core,
      fifo,
      ideal,
      utilization: utilization.map(({ scenario, config, result, ideal }) => ({
        scenario,
        config,
        slots: result.slots,
        interactiveWaitP95Ms: result.interactive.waitMs.p95,
        makespan: ideal,
      })),
      outcomes: quick ? undefined : outcomes.map((o) => [o.start, o.end, o.code ?? null]),
    },
  };
};

/** The issue's two figures: on the day scenario as shipped, and on the demo with no reserved chat slot. */
function utilizationGoals(rows: readonly UtilizationRow[]): Goal[] {
  const picks = [
    rows.find((r) => r.scenario === "day" && r.config.startsWith("as shipped")),
    rows.find((r) => r.scenario === "demo" && r.config === "reserved 0"),
  ];
  return picks.flatMap((row) => {
    if (row === undefined) return [];
    const busy = row.result.slots.utilizationWhileWaiting ?? 1;
    return [
      {
        name: `${row.scenario}, ${row.config}: slots busy while anything waits`,
        target: ">= 98%",
        measured: `${(100 * busy).toFixed(2)}%`,
        holds: busy >= 0.98,
      },
      {
        name: `${row.scenario}, ${row.config}: batch makespan against the work-conserving ideal`,
        target: "<= 1.05x",
        measured: `${row.ideal.ratio.toFixed(3)}x`,
        holds: row.ideal.ratio <= 1.05,
      },
    ];
  });
}
