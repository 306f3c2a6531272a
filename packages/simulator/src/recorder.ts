import type { Clock } from "@llm-scheduler/core";
import { SlotMeter, type SlotMeterOptions, type SlotTotals } from "./slot-meter.js";
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

/** Options of a {@link Recorder}. */
export interface RecorderOptions extends SlotMeterOptions {
  /** The start of the run, by `clock`. @default clock.now() */
  readonly start?: number;
}

/** Slot use over a run, as the recorder measured it at the gateway. */
export interface SlotRecord extends SlotTotals {
  /**
   * Slot-ms busy per priority between the first batch item sent and the last one settled (the batch
   * makespan's window); empty when no batch item was sent.
   */
  readonly busyInBatchWindowMs: Readonly<Record<string, number>>;
  /** Slot-ms the limit in force allowed in the batch makespan's window (0 when no batch item was sent). */
  readonly availableInBatchWindowMs: number;
  /** The batch makespan's window, ms (0 when no batch item was sent). */
  readonly batchWindowMs: number;
}

/**
 * Collects everything a run measures: per-request outcomes (the client's view), per-attempt queue waits
 * and slot use (the gateway's view) and load samples. Times are kept relative to the start of the run.
 *
 * @example
 * const recorder = new Recorder(clock, { capacity: 8, reserved: { interactive: 2 } });
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
  readonly #meter: SlotMeter;
  /** Slot-ms busy by priority when the first batch item was sent, and when the last one settled. */
  #batchWindow:
    | {
        from: Record<string, number>;
        to: Record<string, number>;
        availableFrom: number;
        availableTo: number;
        fromAt: number;
        toAt: number;
      }
    | undefined;

  constructor(clock: Clock, options: RecorderOptions = {}) {
    this.#clock = clock;
    this.#start = options.start ?? clock.now();
    this.#meter = new SlotMeter(options);
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
    if (spec.kind === "batch" && this.#batchWindow === undefined) {
      const busy = this.#meter.busyUntil(record.sentAt);
      const available = this.#meter.availableUntil(record.sentAt);
      this.#batchWindow = {
        from: busy,
        to: busy,
        availableFrom: available,
        availableTo: available,
        fromAt: record.sentAt,
        toAt: record.sentAt,
      };
    }
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
    if (record.spec.kind === "batch" && this.#batchWindow !== undefined) {
      this.#batchWindow.to = this.#meter.busyUntil(record.endedAt);
      this.#batchWindow.availableTo = this.#meter.availableUntil(record.endedAt);
      this.#batchWindow.toAt = record.endedAt;
    }
  }

  /** The gateway's limit moved (an adaptive limit): utilization is measured against the limit in force. */
  limitChanged(limit: number): void {
    this.#meter.setCapacity(limit, this.now());
  }

  arrived(priority: string): void {
    this.#meter.queued(priority, this.now());
  }

  released(priority: string): void {
    this.#meter.released(priority, this.now());
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
    this.#meter.dequeued(priority, this.now(), started);
  }

  /** Slot use from the start of the run to `now` (ms after the start). @default the last request settled */
  slots(now: number = this.endedAt): SlotRecord {
    const totals = this.#meter.totals(now);
    const window = this.#batchWindow;
    const busyInBatchWindowMs: Record<string, number> = {};
    if (window !== undefined) {
      for (const [priority, busy] of Object.entries(window.to)) {
        busyInBatchWindowMs[priority] = busy - (window.from[priority] ?? 0);
      }
    }
    const availableInBatchWindowMs = window === undefined ? 0 : window.availableTo - window.availableFrom;
    const batchWindowMs = window === undefined ? 0 : window.toAt - window.fromAt;
    return { ...totals, busyInBatchWindowMs, availableInBatchWindowMs, batchWindowMs };
  }

  sample(snapshot: LoadSnapshot): void {
    const { queued, running, limit } = snapshot;
    this.samples.push({ at: this.now(), queued: { ...queued }, running: { ...running }, limit });
  }
}
