import type { LoadSample, Recorder, RequestRecord } from "./recorder.js";
import type { ResolvedScenario } from "./scenario-resolve.js";
import type { ReplicaResult } from "./virtual-pool.js";

/**
 * Nearest-rank percentiles of a whole set of values, exact (`Infinity` stands for "never"). Not core's
 * `Quantiles`, which a live scheduler estimates from a stream and which carries a mean.
 */
export interface Percentiles {
  readonly count: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

export interface InteractiveResult {
  /** Chat requests sent (each may have had several attempts). */
  readonly requests: number;
  readonly answered: number;
  /** Given up after every retry. */
  readonly unanswered: number;
  readonly attempts: number;
  readonly retries: number;
  /** Attempts abandoned by the front end's timeout. */
  readonly timeouts: number;
  /** Attempts answered 429 (queue full or queue timeout at the gateway). */
  readonly rejected429: number;
  /** Attempts answered with any other error status. */
  readonly otherErrors: number;
  /** Queue wait per attempt, at the gateway; an attempt that left unserved counts with its wait so far. */
  readonly waitMs: Percentiles;
  /** Per request, from the first send to the first token, retries included; unanswered ones are `Infinity`. */
  readonly ttftMs: Percentiles;
  /** The mean of `ttftMs` over the answered requests (0 when none was answered). */
  readonly ttftMeanMs: number;
}

export interface BatchResult {
  readonly items: number;
  readonly completed: number;
  readonly unanswered: number;
  readonly retries: number;
  /** Completed items per second over the makespan. */
  readonly throughputPerSec: number;
  /** From the first batch item sent to the last one settled. */
  readonly makespanMs: number;
  /** The longest queue wait of any batch attempt. */
  readonly longestWaitMs: number;
  readonly waitMs: Percentiles;
}

export interface TenantResult {
  readonly tenant: string;
  readonly kind: "chat" | "batch";
  readonly requests: number;
  readonly answered: number;
  /** From the tenant's first request sent to its last one settled. */
  readonly completionMs: number;
}

/**
 * How busy the upstream's slots were, measured exactly at the gateway (every arrival, start and end is a
 * step; nothing is sampled). A slot-ms is one slot busy (or idle) for one millisecond.
 */
export interface SlotResult {
  /**
   * The gateway's limit: the fixed one, or with an adaptive limit its mean over the batch makespan's
   * window (over the whole run when no batch item was sent), weighted by time.
   */
  readonly capacity: number;
  /**
   * Busy slot-ms over available slot-ms (the limit in force at each moment, times its span) while at
   * least one attempt waited at the gateway; `undefined` when nothing ever waited. 1 means no slot ever
   * idled while work waited.
   */
  readonly utilizationWhileWaiting: number | undefined;
  /** Busy slot-ms over the slot-ms the limit in force allowed over the whole run. */
  readonly utilization: number;
  /** How long at least one attempt waited at the gateway, ms. */
  readonly waitingMs: number;
  /** Idle slot-ms while something waited. */
  readonly idleWhileWaitingMs: number;
  /** The part of {@link idleWhileWaitingMs} that was `reserved` slots kept for a priority with nothing waiting. */
  readonly idleReservedMs: number;
  /** Slot-ms busy per priority over the whole run. */
  readonly busyMs: Readonly<Record<string, number>>;
  /** Slot-ms of chat work within the batch makespan's window (first batch item sent to last one settled). */
  readonly chatBusyInBatchMs: number;
}

/** Everything one run measured, ready for the table and the HTML report. */
export interface RunResult {
  readonly label: string;
  /** From the start to the last request settled, by the run's clock (virtual or real). */
  readonly elapsedMs: number;
  readonly interactive: InteractiveResult;
  readonly batch: BatchResult;
  readonly slots: SlotResult;
  readonly tenants: readonly TenantResult[];
  /** Sorted queue waits of every attempt, by priority (for CDF charts). */
  readonly waits: Readonly<Record<string, readonly number[]>>;
  /** The same waits in the order they ended, with when (ms after the start): for waits over time. */
  readonly waitTimeline: Readonly<
    Record<string, { readonly at: readonly number[]; readonly waitMs: readonly number[] }>
  >;
  readonly samples: readonly LoadSample[];
  readonly priorities: { readonly chat: string; readonly batch: string };
  /** With a pool (`scenario.pool`): what each replica did. */
  readonly replicas?: readonly ReplicaResult[];
}

/**
 * Nearest-rank percentiles; the input must be sorted ascending. Empty input gives zeros.
 *
 * @example
 * percentiles([1, 2, 3, 4]); // { count: 4, p50: 2, p95: 4, p99: 4, max: 4 }
 */
export function percentiles(sorted: readonly number[]): Percentiles {
  const at = (q: number): number => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0;
  return { count: sorted.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: at(1) };
}

const ascending = (a: number, b: number): number => a - b;

function spanOf(records: readonly RequestRecord[]): number {
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const record of records) {
    first = Math.min(first, record.sentAt);
    last = Math.max(last, record.endedAt ?? record.sentAt);
  }
  return records.length === 0 ? 0 : last - first;
}

function tenantsOf(records: readonly RequestRecord[]): TenantResult[] {
  const groups = new Map<string, RequestRecord[]>();
  for (const record of records) {
    const list = groups.get(record.spec.tenant) ?? [];
    list.push(record);
    groups.set(record.spec.tenant, list);
  }
  return [...groups].map(([tenant, list]) => ({
    tenant,
    kind: list[0]!.spec.kind,
    requests: list.length,
    answered: list.filter((record) => record.outcome === "answered").length,
    completionMs: spanOf(list),
  }));
}

function meanOfFinite(values: readonly number[]): number {
  let sum = 0;
  let count = 0;
  for (const value of values) {
    if (!Number.isFinite(value)) continue;
    sum += value;
    count++;
  }
  return count === 0 ? 0 : sum / count;
}

function sumStatuses(statuses: Record<string, number>, keep: (status: number) => boolean): number {
  return Object.entries(statuses).reduce((sum, [status, n]) => (keep(Number(status)) ? sum + n : sum), 0);
}

function interactiveOf(recorder: Recorder, chats: readonly RequestRecord[], waits: number[]) {
  const counters = recorder.counters.chat;
  const ttft = chats.map((record) =>
    record.outcome === "answered" && record.firstTokenAt !== undefined
      ? record.firstTokenAt - record.sentAt
      : Number.POSITIVE_INFINITY,
  );
  return {
    requests: chats.length,
    answered: chats.filter((record) => record.outcome === "answered").length,
    unanswered: chats.filter((record) => record.outcome === "unanswered").length,
    attempts: chats.reduce((sum, record) => sum + record.attempts, 0),
    retries: counters.retries,
    timeouts: counters.timeouts,
    rejected429: counters.statuses["429"] ?? 0,
    otherErrors: sumStatuses(counters.statuses, (status) => status !== 429),
    waitMs: percentiles(waits),
    ttftMs: percentiles(ttft.sort(ascending)),
    ttftMeanMs: meanOfFinite(ttft),
  };
}

function slotsOf(recorder: Recorder, scenario: ResolvedScenario): SlotResult {
  const record = recorder.slots();
  const busy = Object.values(record.busyMs).reduce((sum, ms) => sum + ms, 0);
  const available = record.availableWhileWaitingMs;
  const idleWhileWaitingMs = Math.max(0, available - record.busyWhileWaitingMs);
  const capacity =
    record.batchWindowMs > 0 && record.availableInBatchWindowMs > 0
      ? record.availableInBatchWindowMs / record.batchWindowMs
      : recorder.endedAt > 0
        ? record.availableMs / recorder.endedAt
        : scenario.maxConcurrency;
  return {
    capacity,
    utilizationWhileWaiting: available > 0 ? record.busyWhileWaitingMs / available : undefined,
    utilization: record.availableMs > 0 ? busy / record.availableMs : 0,
    waitingMs: record.waitingMs,
    idleWhileWaitingMs,
    // Both sums are exact, but added in a different order: never let rounding show a negative rest.
    idleReservedMs: Math.min(record.idleReservedMs, idleWhileWaitingMs),
    busyMs: record.busyMs,
    chatBusyInBatchMs: record.busyInBatchWindowMs[scenario.chat.priority] ?? 0,
  };
}

/**
 * Turns what a run recorded into its results.
 *
 * @example
 * const result = summarize("llm-scheduler", recorder, scenario);
 * result.interactive.waitMs.p95;
 */
export function summarize(label: string, recorder: Recorder, scenario: ResolvedScenario): RunResult {
  const chats = recorder.records.filter((record) => record.spec.kind === "chat");
  const items = recorder.records.filter((record) => record.spec.kind === "batch");
  const waits: Record<string, number[]> = {};
  for (const [priority, entry] of recorder.waits) waits[priority] = [...entry.waits].sort(ascending);
  const chatWaits = waits[scenario.chat.priority] ?? [];
  const batchWaits = waits[scenario.batch.priority] ?? [];
  const completed = items.filter((record) => record.outcome === "answered").length;
  const makespanMs = spanOf(items);
  return {
    label,
    elapsedMs: recorder.endedAt,
    interactive: interactiveOf(recorder, chats, chatWaits),
    batch: {
      items: items.length,
      completed,
      unanswered: items.filter((record) => record.outcome === "unanswered").length,
      retries: recorder.counters.batch.retries,
      throughputPerSec: makespanMs > 0 ? completed / (makespanMs / 1_000) : 0,
      makespanMs,
      longestWaitMs: batchWaits.at(-1) ?? 0,
      waitMs: percentiles(batchWaits),
    },
    slots: slotsOf(recorder, scenario),
    tenants: tenantsOf(recorder.records),
    waits,
    waitTimeline: Object.fromEntries(
      [...recorder.waits].map(([priority, entry]) => [priority, { at: entry.at, waitMs: entry.waits }]),
    ),
    samples: recorder.samples,
    priorities: { chat: scenario.chat.priority, batch: scenario.batch.priority },
  };
}
