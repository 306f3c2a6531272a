import type { RunResult } from "./stats.js";
import { lineChart } from "./svg-chart.js";

const MAX_POINTS = 480;

/** True when some run's limit moved (an adaptive limit): only then is the limit worth a chart. */
export function hasLimits(results: readonly RunResult[]): boolean {
  return results.some(({ samples }) => samples.some((sample) => sample.limit !== samples[0]?.limit));
}

/** The highest limit or in-flight count of any run, for one shared scale. */
export function maxLimitOf(results: readonly RunResult[]): number {
  let max = 1;
  for (const { samples } of results) {
    for (const sample of samples) {
      const inFlight = Object.values(sample.running).reduce((sum, n) => sum + n, 0);
      max = Math.max(max, sample.limit ?? 0, inFlight);
    }
  }
  return max;
}

/**
 * One run's concurrency limit over time (it moves with the adaptive limit) beside what was in flight
 * upstream, as an inline SVG line chart.
 *
 * @example
 * const svg = limitChart(result, 600_000, 40);
 */
export function limitChart(result: RunResult, maxTime: number, maxCount: number): string {
  const samples = result.samples.filter((sample) => sample.limit !== undefined);
  const step = Math.max(1, Math.ceil(samples.length / MAX_POINTS));
  const shown = samples.filter((_, i) => i % step === 0 || i === samples.length - 1);
  return lineChart({
    title: `${result.label}: concurrency limit over time`,
    x: { min: 0, max: maxTime, label: "time", time: true },
    y: { min: 0, max: maxCount, label: "requests" },
    series: [
      { name: "limit", color: "#16a34a", points: shown.map((s) => [s.at, s.limit!] as const) },
      {
        name: "in flight",
        color: "#6b7280",
        dashed: true,
        points: shown.map((s) => [s.at, Object.values(s.running).reduce((sum, n) => sum + n, 0)] as const),
      },
    ],
    steps: true,
  });
}
