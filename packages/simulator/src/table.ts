import { formatDuration, formatRate, formatShare, layoutTable } from "./format.js";
import { explainMakespan, makespanVsIdeal } from "./ideal.js";
import type { ResolvedScenario } from "./scenario-resolve.js";
import type { Percentiles, RunResult } from "./stats.js";

/** A row's name and how to fill a run's cell; `baseline` is the first run (FIFO). */
type Row = readonly [string, (result: RunResult, baseline: RunResult) => string];

/** Idle slot-ms while work waited, as a share of the slot-ms available then. */
const idleShare = (result: RunResult, idleMs: number): string => {
  const available = result.slots.capacity * result.slots.waitingMs;
  return available > 0 ? formatShare(idleMs / available) : "-";
};

/** A percentile of nothing is no number: `-`, not a `0 ms` that reads as a perfect result. */
const percentile = (values: Percentiles, pick: "p50" | "p95" | "p99"): string =>
  values.count === 0 ? "-" : formatDuration(values[pick]);

const ROWS: readonly Row[] = [
  ["interactive queue wait p50", (r) => percentile(r.interactive.waitMs, "p50")],
  ["interactive queue wait p95", (r) => percentile(r.interactive.waitMs, "p95")],
  ["interactive queue wait p99", (r) => percentile(r.interactive.waitMs, "p99")],
  ["interactive TTFT p50", (r) => percentile(r.interactive.ttftMs, "p50")],
  ["interactive TTFT p95", (r) => percentile(r.interactive.ttftMs, "p95")],
  ["interactive TTFT p99", (r) => percentile(r.interactive.ttftMs, "p99")],
  ["interactive answered", (r) => `${r.interactive.answered} / ${r.interactive.requests}`],
  ["interactive timeouts", (r) => String(r.interactive.timeouts)],
  ["interactive 429s", (r) => String(r.interactive.rejected429)],
  ["interactive retries", (r) => String(r.interactive.retries)],
  ["batch completed", (r) => `${r.batch.completed} / ${r.batch.items}`],
  ["batch throughput", (r) => formatRate(r.batch.throughputPerSec)],
  ["batch makespan", (r) => formatDuration(r.batch.makespanMs)],
  ["ideal batch makespan", (r, fifo) => formatDuration(makespanVsIdeal(fifo, r).idealMs)],
  ["batch makespan / ideal", (r, fifo) => `${makespanVsIdeal(fifo, r).ratio.toFixed(2)}x`],
  ["longest batch wait", (r) => formatDuration(r.batch.longestWaitMs)],
  ["slots busy while queued", (r) => formatShare(r.slots.utilizationWhileWaiting)],
  ["  idle: reserved, unused", (r) => idleShare(r, r.slots.idleReservedMs)],
  ["  idle: caps, quotas, gaps", (r) => idleShare(r, r.slots.idleWhileWaitingMs - r.slots.idleReservedMs)],
  ["slots busy overall", (r) => formatShare(r.slots.utilization)],
  ["chat share of batch window", (r) => formatShare(chatShare(r))],
];

/** Chat's share of the slot-time of the batch makespan's window. */
function chatShare(result: RunResult): number | undefined {
  const available = result.slots.capacity * result.batch.makespanMs;
  return available > 0 ? result.slots.chatBusyInBatchMs / available : undefined;
}

/**
 * One line describing the scenario, shown above its tables.
 *
 * @example
 * describeScenario(scenario); // "demo: 15.0 s of chat at 3/s (front-end timeout 5000 ms, 2 retries), ..."
 */
function chatRate({ chat }: ResolvedScenario): string {
  if (chat.rateSchedule === null) return `${chat.ratePerSec}/s`;
  const mean = Math.round(chat.ratePerSec * 100) / 100;
  return `${mean}/s on average (changing every ${formatDuration(chat.rateSchedule.stepMs)})`;
}

export function describeScenario(scenario: ResolvedScenario): string {
  const items = scenario.batch.tenants.reduce((sum, tenant) => sum + tenant.items, 0);
  const tenants = scenario.batch.tenants.length;
  return (
    `${scenario.name}: ${formatDuration(scenario.durationMs)} of chat at ${chatRate(scenario)} ` +
    `(front-end timeout ${formatDuration(scenario.chat.timeoutMs)}, ${scenario.chat.retries} retries), ` +
    `${items} batch items from ${tenants} tenant${tenants === 1 ? "" : "s"}, ` +
    `${scenario.upstream.parallel} upstream sequences, gateway limit ${scenario.maxConcurrency}, seed ${scenario.seed}`
  );
}

function tenantRows(scenario: ResolvedScenario, results: readonly RunResult[]): string[][] {
  return scenario.batch.tenants.map((tenant) => [
    `tenant ${tenant.name} done after`,
    ...results.map((result) => {
      const found = result.tenants.find((entry) => entry.tenant === tenant.name);
      return found === undefined ? "-" : formatDuration(found.completionMs);
    }),
  ]);
}

/**
 * How many times lower `candidateMs` is than `baselineMs` (a wait under 1 ms counts as 1 ms).
 *
 * @example
 * improvement(5_000, 100); // 50
 */
export function improvement(baselineMs: number, candidateMs: number): number {
  return Math.max(baselineMs, 1) / Math.max(candidateMs, 1);
}

/**
 * The side-by-side table of runs of one scenario (FIFO against llm-scheduler, usually): interactive
 * queue wait and TTFT quantiles, timeouts, 429s, retries, batch throughput, makespan, longest batch wait
 * and per-tenant completion time, with a one-line verdict when there are two runs.
 *
 * @example
 * console.log(renderComparison(scenario, [fifo, scheduled]));
 */
export function renderComparison(scenario: ResolvedScenario, results: readonly RunResult[]): string {
  const rows: string[][] = [
    ["", ...results.map((result) => result.label)],
    ...ROWS.map(([name, cell]) => [name, ...results.map((result) => cell(result, results[0]!))]),
    ...tenantRows(scenario, results),
  ];
  const lines = [describeScenario(scenario), "", layoutTable(rows)];
  if (results.length >= 2 && results[0]!.batch.items > 0) {
    lines.push("", ...results.slice(1).map((result) => explainMakespan(results[0]!, result)));
  }
  if (results.length === 2) lines.push("", verdict(results[0]!, results[1]!));
  const pools = results.filter((result) => result.replicas !== undefined).map(describeReplicas);
  if (pools.length > 0) lines.push("", ...pools);
  return lines.join("\n");
}

/**
 * One line per run with a pool: each replica's requests, and how much of the shared prefixes its cache
 * already held.
 *
 * @example
 * describeReplicas(result); // "llm-scheduler: prefix cache hits 88.7%; requests per replica r0 1049, r1 839, ..."
 */
export function describeReplicas(result: RunResult): string {
  const replicas = result.replicas ?? [];
  const asked = replicas.reduce((sum, replica) => sum + replica.prefixTokens, 0);
  const hit = replicas.reduce((sum, replica) => sum + replica.prefixHitTokens, 0);
  const hits = asked === 0 ? "no shared prefix" : `prefix cache hits ${formatShare(hit / asked)}`;
  const each = replicas.map((replica) => `${replica.id} ${replica.started}`).join(", ");
  return `${result.label}: ${hits}; requests per replica ${each}`;
}

/** `12x lower`, `1.5x higher`, or `about the same`. */
function ratio(factor: number): string {
  if (factor >= 0.95 && factor <= 1.05) return "about the same";
  const shown = (x: number) => (x >= 10 ? x.toFixed(0) : x.toFixed(1));
  return factor > 1 ? `${shown(factor)}x lower` : `${shown(1 / factor)}x higher`;
}

function verdict(baseline: RunResult, candidate: RunResult): string {
  if (baseline.interactive.waitMs.count === 0 || candidate.interactive.waitMs.count === 0) {
    return "interactive p95 queue wait: no chat request was sent, so there is nothing to compare (a longer duration or a higher chat rate sends some)";
  }
  const factor = improvement(baseline.interactive.waitMs.p95, candidate.interactive.waitMs.p95);
  return (
    `interactive p95 queue wait: ${formatDuration(baseline.interactive.waitMs.p95)} with ${baseline.label}, ` +
    `${formatDuration(candidate.interactive.waitMs.p95)} with ${candidate.label} (${ratio(factor)})`
  );
}

/** What the table's rows mean; printed under it by the CLIs. */
export const tableLegend = [
  "queue wait: per attempt, at the gateway, until it was sent upstream (an attempt that left unserved counts with the time it had waited)",
  "TTFT: per chat request, from its first send to its first token, retries included; `never` for one never answered",
  "timeouts: attempts the front end gave up on (then retried); 429s: attempts the gateway turned away",
  "makespan: first batch item sent to last batch item done; throughput: items done per second of makespan",
  "ideal: the first run's (FIFO's) makespan plus the extra chat slot-time served during the batch, spread over the limit in force (an adaptive limit's mean)",
  "slots busy while queued: busy slot-time / (limit in force x time) while any attempt waited at the gateway; idle: reserved slots kept for a priority with nothing waiting, and the rest",
].join("\n");
