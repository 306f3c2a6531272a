// Part 12: the adaptive limit against a virtual LLM server whose capacity it is not told, in virtual time:
// the two controllers ("delay", "aimd") in the same run, fed as the adapters feed it and as plain tasks.

import { type AdaptiveRun, type AdaptiveRunOptions, simulateAdaptive } from "../adaptive/simulate.js";
import type { Part } from "../lib/part.js";
import type { Goal } from "../lib/report.js";

/** Seconds after a change of capacity that the limit may take to settle. */
const SETTLE_S = 60;
const CONTROLLERS = ["delay", "aimd"] as const;
const FEEDS = ["permit", "run"] as const;
type Controller = (typeof CONTROLLERS)[number];
type Feed = (typeof FEEDS)[number];

interface Phase {
  readonly name: string;
  readonly fromS: number;
  readonly toS: number;
  readonly knee: number;
}

interface PhaseFigures {
  readonly min: number;
  readonly max: number;
  /** Share of the per-second limits from SETTLE_S to the phase's end within ±10% of the knee. */
  readonly inBand: number;
  /** Seconds from the phase's start after which every per-second limit stays within ±10%. */
  readonly settleS: number;
  /** Chat run time (start to last token) p95, and time from arrival to the last token p95. */
  readonly chatP95: number;
  readonly totalP95: number;
}

const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};

function phaseFigures(run: AdaptiveRun, phase: Phase): PhaseFigures {
  const within = (limit: number): boolean => Math.abs(limit - phase.knee) <= 0.1 * phase.knee;
  const inPhase = run.limits.filter(([at]) => at >= phase.fromS * 1_000 && at < phase.toS * 1_000);
  const settled = inPhase.filter(([at]) => at >= (phase.fromS + SETTLE_S) * 1_000).map(([, limit]) => limit);
  const out = inPhase.filter(([, limit]) => !within(limit));
  const settleS = out.length === 0 ? 0 : out[out.length - 1]![0] / 1_000 + 1 - phase.fromS;
  const chat = run.chat.filter((c) => c.at >= (phase.fromS + SETTLE_S) * 1_000 && c.at < phase.toS * 1_000);
  return {
    min: Math.min(...settled),
    max: Math.max(...settled),
    inBand: settled.filter(within).length / Math.max(1, settled.length),
    settleS,
    chatP95: quantile(
      chat.map((c) => c.runMs),
      0.95,
    ),
    totalP95: quantile(
      chat.map((c) => c.totalMs),
      0.95,
    ),
  };
}

const tokens = (run: AdaptiveRun): number => run.batchTokens.at(-1)!;
const percent = (share: number): string => `${(100 * share).toFixed(0)}%`;

export const run: Part = async ({ quick, log }) => {
  const stepS = quick ? 120 : 180;
  const knee = 24;
  const phases: Phase[] = [
    { name: "knee 24", fromS: 0, toS: stepS, knee },
    { name: "halved (knee 12)", fromS: stepS, toS: 2 * stepS, knee: knee / 2 },
    { name: "doubled (knee 24)", fromS: 2 * stepS, toS: 3 * stepS, knee },
  ];
  const base: Omit<AdaptiveRunOptions, "maxConcurrency" | "feed"> = {
    knee,
    hardLimit: 2 * knee,
    changes: [
      { atMs: stepS * 1_000, scale: 0.5 },
      { atMs: 2 * stepS * 1_000, scale: 1 },
    ],
    durationMs: 3 * stepS * 1_000,
    batchClients: 120,
    chatPerSecond: 2,
    seed: 7,
  };
  const range = { initial: 8, min: 2, max: 128 };
  const runs = new Map<string, AdaptiveRun>();
  const idle = new Map<Feed, { p95: number; totalP95: number }>();
  for (const feed of FEEDS) {
    const quiet = await simulateAdaptive({
      ...base,
      feed,
      batchClients: 0,
      maxConcurrency: knee,
      changes: [],
    });
    idle.set(feed, {
      p95: quantile(
        quiet.chat.map((c) => c.runMs),
        0.95,
      ),
      totalP95: quantile(
        quiet.chat.map((c) => c.totalMs),
        0.95,
      ),
    });
    for (const controller of CONTROLLERS) {
      const adaptive = { controller };
      runs.set(
        `${controller}/${feed}`,
        await simulateAdaptive({ ...base, feed, maxConcurrency: range, adaptive }),
      );
      log(`${controller}, ${feed}: simulated ${base.durationMs / 1000} s`);
    }
  }
  const fixed = await simulateAdaptive({ ...base, feed: "permit", maxConcurrency: knee });
  const reserved = await simulateAdaptive({
    ...base,
    feed: "permit",
    maxConcurrency: range,
    chatReserved: 6,
  });
  const reservedNote = (): string => {
    const parts = phases.map((phase) => {
      const from = (phase.fromS + SETTLE_S) * 1_000;
      const at = reserved.limits.flatMap(([t], i) => (t >= from && t < phase.toS * 1_000 ? [i] : []));
      const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
      const limit = mean(at.map((i) => reserved.limits[i]![1]));
      const busy = mean(at.map((i) => reserved.busy[i]!));
      const chat = reserved.chat.filter((c) => c.at >= from && c.at < phase.toS * 1_000);
      const p95 = quantile(
        chat.map((c) => c.totalMs),
        0.95,
      );
      return `${phase.name}: limit ${limit.toFixed(1)}, busy ${busy.toFixed(1)}, chat arrival to last token p95 ${(p95 / idle.get("permit")!.totalP95).toFixed(2)}x idle`;
    });
    return `Delay, permit, with 6 slots reserved for chat (once settled): ${parts.join("; ")}.`;
  };
  const figures = (controller: Controller, feed: Feed) =>
    phases.map((phase) => phaseFigures(runs.get(`${controller}/${feed}`)!, phase));

  const goals: Goal[] = [];
  for (const feed of FEEDS) {
    const rows = figures("delay", feed);
    const idleP95 = idle.get(feed)!.p95;
    goals.push({
      name: `delay, ${feed}: every per-second limit within ±10% of the knee from ${SETTLE_S} s after each change to the phase's end`,
      target: "100% (each phase)",
      measured: rows.map((r) => percent(r.inBand)).join(", "),
      holds: rows.every((r) => r.inBand === 1),
    });
    goals.push({
      name: `delay, ${feed}: chat run time p95 (once settled) within 1.25x of idle`,
      target: "<= 1.25x (each phase)",
      measured: rows.map((r) => `${(r.chatP95 / idleP95).toFixed(2)}x`).join(", "),
      holds: rows.every((r) => r.chatP95 / idleP95 <= 1.25),
    });
  }

  const phaseRow = (controller: Controller, feed: Feed) =>
    figures(controller, feed).map((f, i) => {
      const { p95, totalP95 } = idle.get(feed)!;
      return [
        controller,
        feed,
        phases[i]!.name,
        `${f.min}–${f.max}`,
        percent(f.inBand),
        `${f.settleS} s`,
        `${Math.round(f.chatP95)} ms (${(f.chatP95 / p95).toFixed(2)}x)`,
        `${Math.round(f.totalP95)} ms (${(f.totalP95 / totalP95).toFixed(2)}x)`,
      ];
    });
  const totals = (controller: Controller, feed: Feed): string[] => {
    const mine = runs.get(`${controller}/${feed}`)!;
    const other = runs.get(`${controller === "delay" ? "aimd" : "delay"}/${feed}`)!;
    return [
      controller,
      feed,
      String(tokens(mine)),
      `${(tokens(mine) / tokens(fixed)).toFixed(2)}x`,
      `${(tokens(mine) / tokens(other)).toFixed(2)}x`,
      String(mine.refused503),
      String(mine.limitEvents),
    ];
  };
  return {
    part: "adaptive",
    title: "Adaptive limit against a server of unknown capacity, in virtual time: delay against AIMD",
    method: [
      `The real core on a VirtualClock in front of the simulator's virtual upstream with a capacity model: up to the knee (${knee} sequences) a step is at most 10% slower than alone; each sequence past it adds 4/knee to the step time; past twice the knee in flight it answers 503. The capacity halves at ${stepS} s and comes back at ${2 * stepS} s; the gateway is not told.`,
      `Load: ${base.batchClients} closed-loop batch clients (1,000-token prompts, 200 output tokens; 1 s back-off after a 503) and ${base.chatPerSecond} chat requests per second (Poisson; 200-token prompts, 50 output tokens). Priorities: interactive weight 5, batch weight 1, nothing reserved (so the limit is what the server sees: batch fills it).`,
      `Feeds: "permit" holds a permit, reports the first byte and the usage (as the HTTP adapters do); "run" is a plain run() task that reports nothing (the limit sees run times only). Controllers: adaptive.controller "delay" and "aimd", maxConcurrency { initial: 8, min: 2, max: 128 }, other tunables default. Figures "once settled" run from ${SETTLE_S} s after each change to the phase's end; "settles after" is when the limit last left ±10% of the knee. Chat run time is from its start to the last token; both chat figures are against the same chat load on an idle server (idle run time p95 ${Math.round(idle.get("permit")!.p95)} ms).`,
    ],
    tables: [
      {
        title: "Phase by phase, once settled",
        columns: [
          "controller",
          "feed",
          "phase",
          "limit (min–max)",
          "seconds within ±10%",
          "settles after",
          "chat run time p95 (vs idle)",
          "chat arrival to last token p95 (vs idle)",
        ],
        rows: FEEDS.flatMap((feed) => CONTROLLERS.flatMap((controller) => phaseRow(controller, feed))),
      },
      {
        title: "Whole run",
        columns: [
          "controller",
          "feed",
          "batch tokens",
          `vs fixed ${knee} (the first knee)`,
          "vs the other controller",
          "503s",
          "limit changes",
        ],
        rows: FEEDS.flatMap((feed) => CONTROLLERS.map((controller) => totals(controller, feed))),
      },
    ],
    goals,
    notes: [`Fixed ${knee}: ${tokens(fixed)} batch tokens, ${fixed.refused503} 503s.`, reservedNote()],
    raw: Object.fromEntries(
      [...runs].map(([name, r]) => [
        name,
        { tokens: tokens(r), events: r.limitEvents, refused: r.refused503 },
      ]),
    ),
  };
};
