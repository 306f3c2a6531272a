// Part 12: the adaptive limit against a virtual LLM server whose capacity it is not told, in virtual time.

import { type AdaptiveRun, type AdaptiveRunOptions, simulateAdaptive } from "../adaptive/simulate.js";
import type { Part } from "../lib/part.js";
import type { Goal } from "../lib/report.js";

/** Seconds of the moving mean that says the limit has reached the knee. */
const MEAN_S = 10;

interface Phase {
  readonly name: string;
  readonly fromS: number;
  readonly toS: number;
  readonly knee: number;
}

const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};

/** The moving mean of the limit over the last MEAN_S seconds (of the phase only), at each second of it. */
function movingMeans(run: AdaptiveRun, phase: Phase): Array<[number, number]> {
  const means: Array<[number, number]> = [];
  for (let s = phase.fromS + 1; s <= phase.toS; s++) {
    const from = Math.max(phase.fromS, s - MEAN_S) * 1_000;
    const window = run.limits.filter(([at]) => at > from && at <= s * 1_000);
    means.push([s, window.reduce((sum, [, limit]) => sum + limit, 0) / window.length]);
  }
  return means;
}

/** Seconds from the phase's start until the limit's 10-s moving mean first comes within 10% of the knee. */
function settleSeconds(run: AdaptiveRun, phase: Phase): number {
  const reached = movingMeans(run, phase).find(([, mean]) => Math.abs(mean - phase.knee) <= 0.1 * phase.knee);
  return reached === undefined ? Number.POSITIVE_INFINITY : reached[0] - phase.fromS;
}

/** The limit's range and mean, and the upstream's mean busy sequences, from `settleS` to the phase's end. */
function limitBand(
  run: AdaptiveRun,
  phase: Phase,
  settleS: number,
): { min: number; max: number; mean: number; busy: number } {
  const from = (phase.fromS + Math.min(settleS, phase.toS - phase.fromS)) * 1_000;
  const indexes = run.limits.flatMap(([at], i) => (at >= from && at < phase.toS * 1_000 ? [i] : []));
  const limits = indexes.map((i) => run.limits[i]![1]);
  const mean = (values: number[]): number =>
    values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
  const busy = mean(indexes.map((i) => run.busy[i]!));
  return { min: Math.min(...limits), max: Math.max(...limits), mean: mean(limits), busy };
}

function chatTtfb(run: AdaptiveRun, fromS: number, toS: number): { p50: number; p95: number } {
  const values = run.chat.filter((c) => c.at >= fromS * 1_000 && c.at < toS * 1_000).map((c) => c.ttfbMs);
  return { p50: quantile(values, 0.5), p95: quantile(values, 0.95) };
}

export const run: Part = async ({ quick, log }) => {
  const stepS = quick ? 120 : 180;
  const knee = 32;
  const phases: Phase[] = [
    { name: "start (knee 32)", fromS: 0, toS: stepS, knee },
    { name: "capacity halved (knee 16)", fromS: stepS, toS: 2 * stepS, knee: knee / 2 },
    { name: "capacity back (knee 32)", fromS: 2 * stepS, toS: 3 * stepS, knee },
  ];
  const base: Omit<AdaptiveRunOptions, "maxConcurrency"> = {
    knee,
    hardLimit: 48,
    changes: [
      { atMs: stepS * 1_000, scale: 0.5 },
      { atMs: 2 * stepS * 1_000, scale: 1 },
    ],
    durationMs: 3 * stepS * 1_000,
    batchClients: 120,
    chatPerSecond: 2,
    seed: 7,
  };
  const adaptive = await simulateAdaptive({ ...base, maxConcurrency: { initial: 8, min: 2, max: 128 } });
  const atKnee = await simulateAdaptive({ ...base, maxConcurrency: knee });
  const atMax = await simulateAdaptive({ ...base, maxConcurrency: 64 });
  const idle = await simulateAdaptive({ ...base, batchClients: 0, maxConcurrency: knee, changes: [] });
  log(`simulated ${base.durationMs / 1000} s of virtual time four times`);
  const idleP50 = chatTtfb(idle, 0, 3 * stepS).p50;
  const rows = phases.map((phase) => {
    const settleS = settleSeconds(adaptive, phase);
    const band = limitBand(adaptive, phase, settleS);
    const ttfb = chatTtfb(adaptive, phase.fromS + Math.min(60, settleS), phase.toS);
    return { phase, settleS, band, ttfb };
  });
  const tokens = (r: AdaptiveRun) => r.batchTokens.at(-1)!;
  const goals: Goal[] = [
    ...rows.map((row) => {
      const off = (row.band.mean - row.phase.knee) / row.phase.knee;
      return {
        name: `${row.phase.name}: the limit settles within 10% of the knee in under a minute (its ${MEAN_S}-s mean reaches the band; its mean from then to the phase's end stays in it)`,
        target: "< 60 s, within ±10%",
        measured: Number.isFinite(row.settleS)
          ? `${row.settleS} s, ${off >= 0 ? "+" : ""}${(100 * off).toFixed(1)}%`
          : "never",
        holds: row.settleS < 60 && Math.abs(off) <= 0.1,
      };
    }),
    ...rows.map((row) => ({
      name: `${row.phase.name}: interactive time to first byte (p50, once settled) within 1.25x of idle`,
      target: "<= 1.25x",
      measured: `${(row.ttfb.p50 / idleP50).toFixed(2)}x`,
      holds: row.ttfb.p50 / idleP50 <= 1.25,
    })),
  ];
  const fixedRow = (name: string, r: AdaptiveRun): string[] => {
    const ttfb = chatTtfb(r, 0, 3 * stepS);
    return [
      name,
      String(tokens(r)),
      `${(tokens(r) / tokens(atKnee)).toFixed(2)}x`,
      `${Math.round(ttfb.p50)} ms (${(ttfb.p50 / idleP50).toFixed(2)}x)`,
      `${Math.round(ttfb.p95)} ms`,
      String(r.refused503),
    ];
  };
  return {
    part: "adaptive",
    title: "Adaptive limit against a server of unknown capacity, in virtual time",
    method: [
      `The real core on a VirtualClock in front of the simulator's virtual upstream with a capacity model: up to the knee (${knee} sequences) a step is at most 10% slower than alone; each sequence past it adds 4/knee to the step time; past ${base.hardLimit} in flight it answers 503. The capacity halves at ${stepS} s and comes back at ${2 * stepS} s; the gateway is not told.`,
      `Load: ${base.batchClients} closed-loop batch clients (1,000-token prompts, 200 output tokens; 1 s back-off after a 503) and ${base.chatPerSecond} chat requests per second (Poisson; 200-token prompts, 50 output tokens). Priorities: interactive weight 5 with 6 reserved slots, batch weight 1. Requests hold permits and report their first byte, as the adapters do.`,
      `Adaptive: maxConcurrency { initial: 8, min: 2, max: 128 } with the default tunables. Settling: the first second at which the limit's ${MEAN_S}-s moving mean is within 10% of the knee; "once settled" figures run from there to the phase's end (the AIMD sawtooth is the min–max). Interactive TTFB (queue wait + upstream) is compared with the same chat load on an idle server (batch off): p50 ${Math.round(idleP50)} ms. Rows "fixed" run the same load with a fixed limit.`,
    ],
    tables: [
      {
        title: "The adaptive limit, phase by phase",
        columns: [
          "phase",
          "knee",
          "settled after",
          "limit once settled (min–max, mean)",
          "upstream busy (mean)",
          "chat TTFB p50",
          "chat TTFB p95",
        ],
        rows: rows.map(({ phase, settleS, band, ttfb }) => [
          phase.name,
          String(phase.knee),
          Number.isFinite(settleS) ? `${settleS} s` : "never",
          Number.isFinite(settleS) ? `${band.min}–${band.max}, ${band.mean.toFixed(1)}` : "—",
          Number.isFinite(settleS) ? band.busy.toFixed(1) : "—",
          `${Math.round(ttfb.p50)} ms (${(ttfb.p50 / idleP50).toFixed(2)}x idle)`,
          `${Math.round(ttfb.p95)} ms`,
        ]),
      },
      {
        title: "Same run against fixed limits (whole run)",
        columns: [
          "limit",
          "batch tokens",
          "vs fixed at the first knee",
          "chat TTFB p50",
          "chat TTFB p95",
          "503s",
        ],
        rows: [
          fixedRow("adaptive", adaptive),
          fixedRow(`fixed ${knee} (the first knee)`, atKnee),
          fixedRow("fixed 64", atMax),
        ],
      },
    ],
    goals,
    notes: [`${adaptive.limitEvents} limit changes in the adaptive run.`],
    raw: {
      settle: rows.map((r) => r.settleS),
      idleP50,
      tokens: { adaptive: tokens(adaptive), atKnee: tokens(atKnee), atMax: tokens(atMax) },
    },
  };
};
