import type { Clock } from "@llm-scheduler/core";
import type { LoadSnapshot, WaitSink } from "./transport.js";
import type { RequestKind, RequestSpec } from "./workload.js";

/** What became of one request, over all its attempts. */
export interface RequestRecord {
  readonly spec: RequestSpec;
  /** When the first attempt was sent, ms after the start of the run. */
  sentAt: number;
  attempts: number;
  /** First token of the attempt that was answered, ms after the start. */
  firstTokenAt: number | undefined;
  /** When the answer was complete, or when the client gave up for good, ms after the start. */
  endedAt: number | undefined;
  outcome: "pending" | "answered" | "unanswered";
}

/** Counters of one kind of request. */
export interface KindCounters {
  /** Attempts abandoned by the client's timeout. */
  timeouts: number;
  /** Attempts answered with an error, by HTTP status. */
  statuses: Record<string, number>;
  /** Attempts after the first. */
  retries: number;
}

/** Waits measured at the gateway for one priority. */
export interface PriorityWaits {
  /** One per attempt that reached the gateway: the queue wait, or the wait before it left unserved. */
  readonly waits: number[];
  /** When each of `waits` ended (started or left), ms after the start of the run. */
  readonly at: number[];
  started: number;
  left: number;
}

/** Load at one moment, ms after the start. */
export interface LoadSample extends LoadSnapshot {
  readonly at: number;
}

/**
 * Collects everything a run measures: per-request outcomes (the client's view), per-attempt queue waits
 * (the gateway's view) and load samples. Times are kept relative to the start of the run.
 *
 * @example
 * const recorder = new Recorder(clock);
 * const gateway = createFifoGateway({ ..., waits: recorder });
 */
export class Recorder implements WaitSink {
  readonly #clock: Clock;
  readonly #start: number;
  readonly records: RequestRecord[] = [];
  readonly counters: Record<RequestKind, KindCounters> = {
    chat: { timeouts: 0, statuses: {}, retries: 0 },
    batch: { timeouts: 0, statuses: {}, retries: 0 },
  };
  readonly waits = new Map<string, PriorityWaits>();
  readonly samples: LoadSample[] = [];
  /** Settled requests (answered or given up), for progress lines. */
  readonly settled: Record<RequestKind, number> = { chat: 0, batch: 0 };
  endedAt = 0;

  constructor(clock: Clock, start: number = clock.now()) {
    this.#clock = clock;
    this.#start = start;
  }

  /** Milliseconds since the start of the run. */
  now(): number {
    return this.#clock.now() - this.#start;
  }

  open(spec: RequestSpec): RequestRecord {
    const record: RequestRecord = {
      spec,
      sentAt: this.now(),
      attempts: 0,
      firstTokenAt: undefined,
      endedAt: undefined,
      outcome: "pending",
    };
    this.records.push(record);
    return record;
  }

  attempt(record: RequestRecord): void {
    record.attempts++;
    if (record.attempts > 1) this.counters[record.spec.kind].retries++;
  }

  firstToken(record: RequestRecord): void {
    record.firstTokenAt = this.now();
  }

  timedOut(record: RequestRecord): void {
    this.counters[record.spec.kind].timeouts++;
  }

  failed(record: RequestRecord, status: number): void {
    const statuses = this.counters[record.spec.kind].statuses;
    statuses[status] = (statuses[status] ?? 0) + 1;
  }

  close(record: RequestRecord, outcome: "answered" | "unanswered"): void {
    record.outcome = outcome;
    record.endedAt = this.now();
    if (outcome === "unanswered") record.firstTokenAt = undefined;
    this.settled[record.spec.kind]++;
    this.endedAt = Math.max(this.endedAt, record.endedAt);
  }

  queueWait(priority: string, waitMs: number, started: boolean): void {
    let entry = this.waits.get(priority);
    if (entry === undefined) {
      entry = { waits: [], at: [], started: 0, left: 0 };
      this.waits.set(priority, entry);
    }
    entry.waits.push(Math.max(0, waitMs));
    entry.at.push(this.now());
    if (started) entry.started++;
    else entry.left++;
  }

  sample(snapshot: LoadSnapshot): void {
    this.samples.push({ at: this.now(), queued: { ...snapshot.queued }, running: { ...snapshot.running } });
  }
}
