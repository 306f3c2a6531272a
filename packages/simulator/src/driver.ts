import type { Clock, TimerHandle } from "@llm-scheduler/core";
import type { ControllerFactory } from "./light-abort.js";
import type { Recorder, RequestRecord } from "./recorder.js";
import type { ResolvedScenario } from "./scenario-resolve.js";
import type { AttemptFailure, AttemptHooks, Transport } from "./transport.js";
import type { RequestSpec, Workload } from "./workload.js";

/** What the driver needs: a clock for arrivals, timeouts and retry pauses, a way to send, a recorder. */
export interface DriverOptions {
  readonly scenario: ResolvedScenario;
  readonly workload: Workload;
  readonly clock: Clock;
  readonly transport: Transport;
  readonly recorder: Recorder;
  /** Makes each attempt's abort controller. @default () => new AbortController() */
  readonly controllers?: ControllerFactory;
}

/** The client behaviour of one kind of request. */
interface Policy {
  readonly timeoutMs: number;
  readonly retries: number;
  readonly retryDelayMs: number;
}

/** The reason of a client's give-up; one instance per driver, since building errors costs stack traces. */
export class ClientTimeout extends Error {
  constructor() {
    super("No first token within the client's timeout; the client gave up");
    this.name = "ClientTimeout";
  }
}

/**
 * Plays the clients of a workload: sends each request at its time, gives up on an attempt that has no
 * first token within the timeout (cancelling it) and retries after a pause, retries error answers
 * (after `retry-after-ms` when the gateway gives it), and records everything. The same code runs in
 * virtual time (against the simulated gateways) and in real time (over HTTP).
 *
 * @example
 * const driver = new Driver({ scenario, workload, clock, transport: gateway, recorder });
 * driver.start();
 * // ... advance the clock until driver.finished
 */
export class Driver {
  readonly #options: DriverOptions;
  readonly #start: number;
  #next = 0;
  #arrivalTimer: TimerHandle | null = null;
  #outstanding = 0;
  #finishedListeners: Array<() => void> = [];
  readonly #timeoutReason = new ClientTimeout();
  readonly #makeController: ControllerFactory;

  constructor(options: DriverOptions) {
    this.#options = options;
    this.#start = options.clock.now();
    this.#makeController = options.controllers ?? (() => new AbortController());
  }

  /** True once every request has been sent and has settled (answered, or given up for good). */
  get finished(): boolean {
    return this.#next >= this.#options.workload.requests.length && this.#outstanding === 0;
  }

  /** Calls `listener` once, when the run has finished. */
  onFinished(listener: () => void): void {
    if (this.finished) listener();
    else this.#finishedListeners.push(listener);
  }

  /** Starts sending at the workload's times. */
  start(): void {
    this.#sendDue();
  }

  /** Stops sending (requests already sent go on). */
  stop(): void {
    if (this.#arrivalTimer !== null) this.#options.clock.clearTimer(this.#arrivalTimer);
    this.#arrivalTimer = null;
  }

  #sendDue(): void {
    this.#arrivalTimer = null;
    const { requests } = this.#options.workload;
    const { clock } = this.#options;
    const elapsed = clock.now() - this.#start;
    while (this.#next < requests.length && requests[this.#next]!.at <= elapsed) {
      this.#open(requests[this.#next++]!);
    }
    if (this.#next < requests.length) {
      const wait = requests[this.#next]!.at - elapsed;
      this.#arrivalTimer = clock.setTimer(() => this.#sendDue(), wait);
    } else {
      this.#checkFinished();
    }
  }

  #policy(spec: RequestSpec): Policy {
    return spec.kind === "chat" ? this.#options.scenario.chat : this.#options.scenario.batch;
  }

  #open(spec: RequestSpec): void {
    this.#outstanding++;
    this.#attempt(this.#options.recorder.open(spec), 0);
  }

  #attempt(record: RequestRecord, number: number): void {
    const { clock, recorder, transport } = this.#options;
    const policy = this.#policy(record.spec);
    const run = new AttemptRun(this, record, number, this.#makeController());
    if (policy.timeoutMs !== Number.POSITIVE_INFINITY) {
      run.timer = clock.setTimer(() => run.timeout(), policy.timeoutMs);
    }
    recorder.attempt(record);
    const id = `${record.spec.key}#${number}`;
    transport.send({ id, request: record.spec, number, signal: run.controller.signal }, run);
  }

  /** An attempt ended without an answer: retry after `delayMs`, or give up when retries are spent. */
  retryOrGiveUp(record: RequestRecord, number: number, delayMs: number): void {
    if (number >= this.#policy(record.spec).retries) {
      this.close(record, "unanswered");
      return;
    }
    this.#options.clock.setTimer(() => this.#attempt(record, number + 1), delayMs);
  }

  /** The pause before a retry, by kind of request. */
  retryDelayOf(record: RequestRecord): number {
    return this.#policy(record.spec).retryDelayMs;
  }

  get clock(): Clock {
    return this.#options.clock;
  }

  get recorder(): Recorder {
    return this.#options.recorder;
  }

  get timeoutReason(): ClientTimeout {
    return this.#timeoutReason;
  }

  /** The request is settled for good. */
  close(record: RequestRecord, outcome: "answered" | "unanswered"): void {
    this.#options.recorder.close(record, outcome);
    this.#outstanding--;
    this.#checkFinished();
  }

  #checkFinished(): void {
    if (!this.finished) return;
    const listeners = this.#finishedListeners;
    this.#finishedListeners = [];
    for (const listener of listeners) listener();
  }
}

/**
 * One attempt in flight: the hooks the transport calls, and the client's timeout. Whichever of
 * completion, failure or timeout comes first decides; the others are ignored.
 */
class AttemptRun implements AttemptHooks {
  readonly #driver: Driver;
  readonly #record: RequestRecord;
  readonly #number: number;
  readonly controller: ReturnType<ControllerFactory>;
  timer: TimerHandle | null = null;
  #over = false;

  constructor(
    driver: Driver,
    record: RequestRecord,
    number: number,
    controller: ReturnType<ControllerFactory>,
  ) {
    this.#driver = driver;
    this.#record = record;
    this.#number = number;
    this.controller = controller;
  }

  firstToken(): void {
    if (this.#over) return;
    this.#stopTimer();
    if (this.#record.firstTokenAt === undefined) this.#driver.recorder.firstToken(this.#record);
  }

  completed(): void {
    if (this.#over) return;
    this.#over = true;
    this.#stopTimer();
    if (this.#record.firstTokenAt === undefined) this.#driver.recorder.firstToken(this.#record);
    this.#driver.close(this.#record, "answered");
  }

  failed(failure: AttemptFailure): void {
    if (this.#over) return;
    this.#over = true;
    this.#stopTimer();
    this.#record.firstTokenAt = undefined;
    this.#driver.recorder.failed(this.#record, failure.status);
    const delay = failure.retryAfterMs ?? this.#driver.retryDelayOf(this.#record);
    this.#driver.retryOrGiveUp(this.#record, this.#number, delay);
  }

  /** The client's timeout: give up on this attempt, cancel it, and retry (or give up for good). */
  timeout(): void {
    this.timer = null;
    if (this.#over) return;
    this.#over = true;
    this.#driver.recorder.timedOut(this.#record);
    this.controller.abort(this.#driver.timeoutReason);
    this.#driver.retryOrGiveUp(this.#record, this.#number, this.#driver.retryDelayOf(this.#record));
  }

  #stopTimer(): void {
    if (this.timer !== null) this.#driver.clock.clearTimer(this.timer);
    this.timer = null;
  }
}
