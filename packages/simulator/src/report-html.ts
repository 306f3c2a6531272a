import { timeUnit } from "./chart-axis.js";
import { hasLimits, limitChart, maxLimitOf } from "./limit-chart.js";
import { makespanBars } from "./makespan-bars.js";
import type { ResolvedScenario } from "./scenario-resolve.js";
import type { RunResult } from "./stats.js";
import { type Axis, escapeXml, lineChart, type Series } from "./svg-chart.js";
import { describeScenario } from "./table.js";

/** What {@link renderHtmlReport} shows. */
export interface ReportInput {
  readonly title: string;
  readonly scenario: ResolvedScenario;
  /** The runs, shown side by side (FIFO first, usually). */
  readonly results: readonly RunResult[];
  /** The plain-text table, shown as is. */
  readonly table: string;
  /** Extra lines under the title: where the runs came from, how long they took. */
  readonly notes?: readonly string[];
}

const COLORS = { chat: "#2563eb", batch: "#d97706" };
const MAX_POINTS = 240;

/** At most `MAX_POINTS` points of a sorted list, as `[wait, fraction at or below]` pairs. */
function cdfPoints(sorted: readonly number[], floor: number): [number, number][] {
  const n = sorted.length;
  if (n === 0) return [];
  const step = Math.max(1, Math.floor(n / MAX_POINTS));
  const points: [number, number][] = [[Math.max(sorted[0]!, floor), 0]];
  for (let i = 0; i < n; i += step) points.push([Math.max(sorted[i]!, floor), (i + 1) / n]);
  points.push([Math.max(sorted[n - 1]!, floor), 1]);
  return points;
}

function thin<T>(items: readonly T[]): readonly T[] {
  if (items.length <= MAX_POINTS * 2) return items;
  const step = items.length / (MAX_POINTS * 2);
  return Array.from({ length: MAX_POINTS * 2 }, (_, i) => items[Math.floor(i * step)]!).concat(items.at(-1)!);
}

function waitChart(result: RunResult, maxWait: number): string {
  const x: Axis = {
    min: 1,
    max: maxWait,
    log: true,
    label: "queue wait (log scale)",
    time: true,
  };
  const series: Series[] = [
    {
      name: result.priorities.chat,
      color: COLORS.chat,
      points: cdfPoints(result.waits[result.priorities.chat] ?? [], 1),
    },
    {
      name: result.priorities.batch,
      color: COLORS.batch,
      points: cdfPoints(result.waits[result.priorities.batch] ?? [], 1),
    },
  ];
  const y: Axis = { min: 0, max: 1, label: "share of attempts", format: (v) => `${Math.round(v * 100)}%` };
  return lineChart({ title: `${result.label}: queue wait CDF per priority`, x, y, series });
}

function loadChart(
  result: RunResult,
  field: "queued" | "running",
  maxTime: number,
  maxCount: number,
): string {
  const samples = thin(result.samples);
  const series = (["chat", "batch"] as const).map((kind) => ({
    name: result.priorities[kind],
    color: COLORS[kind],
    points: samples.map((s) => [s.at, s[field][result.priorities[kind]] ?? 0] as const),
  }));
  const what = field === "queued" ? "queue depth" : "in flight upstream";
  return lineChart({
    title: `${result.label}: ${what} over time`,
    x: { min: 0, max: maxTime, label: "time", time: true },
    y: { min: 0, max: maxCount, label: "requests" },
    series,
    steps: true,
  });
}

function maxOf(results: readonly RunResult[], pick: (result: RunResult) => number, floor: number): number {
  return Math.max(floor, ...results.map(pick));
}

function niceCeil(value: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(value));
  return [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((m) => m * magnitude).find((v) => v >= value) ?? value;
}

/** A round end for a time axis, in the unit the axis will read in: 27.8 h becomes 30 h. */
function niceCeilTime(ms: number): number {
  const unit = timeUnit(ms).ms;
  return niceCeil(ms / unit) * unit;
}

/** The gateways' limits over time, when one moved (an adaptive limit; a fixed one is a flat line). */
function limitSection(
  results: readonly RunResult[],
  maxTime: number,
  row: (charts: string[]) => string,
): string {
  if (!hasLimits(results)) return "";
  const max = niceCeil(maxLimitOf(results));
  return `<h2>Concurrency limit over time (and what was in flight)</h2>
${row(results.map((r) => limitChart(r, maxTime, max)))}`;
}

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#111;max-width:1120px}
pre{background:#f6f6f4;padding:12px;overflow-x:auto;font-size:12.5px}
.row{display:flex;flex-wrap:wrap;gap:16px}
h2{font-size:16px;margin-top:28px}.muted{color:#555}`;

/**
 * A self-contained HTML report (inline SVG, inline CSS, no scripts or external files): the table, the
 * batch makespan of each run split into FIFO's, chat's own work and idle slots, then for each run side by side the queue-wait CDF per priority, the queue depth over time and the number in
 * flight over time, on shared scales so the runs compare at a glance.
 *
 * @example
 * await writeFile("report.html", renderHtmlReport({ title: "demo", scenario, results: [fifo, scheduled], table }));
 */
export function renderHtmlReport(input: ReportInput): string {
  const { results } = input;
  const maxWait = niceCeil(
    maxOf(results, (r) => Math.max(...Object.values(r.waits).map((w) => w.at(-1) ?? 0)), 10),
  );
  const maxTime = niceCeilTime(maxOf(results, (r) => r.samples.at(-1)?.at ?? 0, 1_000));
  const maxOfField = (field: "queued" | "running") =>
    niceCeil(maxOf(results, (r) => Math.max(0, ...r.samples.flatMap((s) => Object.values(s[field]))), 1));
  const row = (charts: string[]) => `<div class="row">${charts.join("\n")}</div>`;
  const bars = makespanBars(results);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeXml(input.title)}</title><style>${STYLE}</style></head>
<body>
<h1>${escapeXml(input.title)}</h1>
<p class="muted">${escapeXml(describeScenario(input.scenario))}</p>
${(input.notes ?? []).map((note) => `<p class="muted">${escapeXml(note)}</p>`).join("\n")}
<pre>${escapeXml(input.table)}</pre>
${bars === "" ? "" : `<h2>Batch makespan: FIFO's, chat's own work, and what idle slots and caps added</h2>\n${bars}`}
<h2>Queue wait, per priority (cumulative share of attempts; waits under 1 ms are drawn at 1 ms)</h2>
${row(results.map((r) => waitChart(r, maxWait)))}
<h2>Queue depth over time</h2>
${row(results.map((r) => loadChart(r, "queued", maxTime, maxOfField("queued"))))}
<h2>In flight upstream over time</h2>
${row(results.map((r) => loadChart(r, "running", maxTime, maxOfField("running"))))}
${limitSection(results, maxTime, row)}
</body></html>
`;
}
