import { ErrorCode, type Scheduler, type SchedulerEvents } from "@llm-scheduler/core";
import { failedOutcome } from "@llm-scheduler/core/kit";
import { DurationHistogram } from "./histogram.js";
import { RequestsCounter } from "./requests-counter.js";
import type { ScrapeSnapshot } from "./scrape.js";
import type { TenantRanking } from "./tenant-ranking.js";

/** Rejection codes in lower case, made once. */
const REJECTED_OUTCOMES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(ErrorCode).map((code) => [code, code.toLowerCase()]),
);

/**
 * The series fed from the scheduler's events (the requests counter and three histograms) and the
 * listeners that feed them, added on construction and removed by `stop()`.
 *
 * @example
 * const series = new EventSeries(scheduler, "llm_scheduler_", undefined, scrape);
 * series.stop();
 */
export class EventSeries {
  readonly requests: RequestsCounter;
  readonly wait: DurationHistogram;
  readonly run: DurationHistogram;
  readonly ttfb: DurationHistogram;
  readonly #ranking: TenantRanking | undefined;
  readonly #now: () => number;
  readonly #stops: Array<() => void>;

  constructor(
    scheduler: Scheduler,
    prefix: string,
    ranking: TenantRanking | undefined,
    scrape: ScrapeSnapshot,
  ) {
    this.#ranking = ranking;
    const clock = scheduler.options.clock;
    this.#now = () => clock.now();
    // The counter is printed first in a scrape: taking the snapshot then ranks the tenants that label
    // every series printed in it.
    this.requests = new RequestsCounter(
      `${prefix}requests_total`,
      "Requests settled by this instance, by priority and outcome (completed, failed, or the rejection code in lower case)",
      ranking !== undefined,
      () => scrape.current(),
    );
    this.wait = new DurationHistogram(
      `${prefix}queue_wait_seconds`,
      "Time from submission to a slot, of started requests",
    );
    this.run = new DurationHistogram(
      `${prefix}run_seconds`,
      "Time holding a slot, of requests that completed or failed",
    );
    this.ttfb = new DurationHistogram(
      `${prefix}time_to_first_byte_seconds`,
      "Queue wait plus the upstream's first byte, reported by the adapters",
    );
    this.#stops = [
      scheduler.on("started", (event) => this.#started(event)),
      scheduler.on("completed", (event) => this.#settled(event, "completed")),
      scheduler.on("failed", (event) => this.#settled(event, failedOutcome(event.code))),
      scheduler.on("rejected", (event) => this.#rejected(event)),
      scheduler.on("firstByte", (event) => this.ttfb.observe(event.priority, event.ttfbMs)),
    ];
  }

  /** Removes the listeners. */
  stop(): void {
    for (const stop of this.#stops) stop();
  }

  #label(tenant: string): string {
    return this.#ranking === undefined ? "" : this.#ranking.label(tenant);
  }

  #started(event: SchedulerEvents["started"]): void {
    this.wait.observe(event.priority, event.waitMs);
    this.#ranking?.note(event.tenant, this.#now());
  }

  #settled(event: SchedulerEvents["completed"], outcome: string): void {
    this.requests.inc(event.priority, outcome, this.#label(event.tenant));
    this.run.observe(event.priority, event.runMs);
  }

  #rejected(event: SchedulerEvents["rejected"]): void {
    this.requests.inc(event.priority, REJECTED_OUTCOMES[event.code] ?? "rejected", this.#label(event.tenant));
    this.#ranking?.note(event.tenant, this.#now());
  }
}
