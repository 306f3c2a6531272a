import {
  ErrorCode,
  type Permit,
  type Scheduler,
  type SchedulerEvents,
  type TaskFunction,
  type TaskOptions,
} from "@llm-scheduler/core";
import { resolveShape } from "@llm-scheduler/core/kit";
import { type Context, context } from "@opentelemetry/api";
import { facadeOf } from "./facade.js";
import { type ResolvedTraceOptions, TRACE, type TraceOptions } from "./options.js";
import { RequestTrace } from "./request-trace.js";

/** Traces by task id, for the events that only carry an id (several when a client reuses one). */
class OpenTraces {
  readonly #byId = new Map<string, RequestTrace[]>();

  add(id: string, trace: RequestTrace): void {
    const list = this.#byId.get(id);
    if (list === undefined) this.#byId.set(id, [trace]);
    else list.push(trace);
  }

  first(id: string): RequestTrace | undefined {
    return this.#byId.get(id)?.[0];
  }

  remove(id: string, trace: RequestTrace): void {
    const list = this.#byId.get(id);
    if (list === undefined) return;
    const index = list.indexOf(trace);
    if (index >= 0) list.splice(index, 1);
    if (list.length === 0) this.#byId.delete(id);
  }
}

/**
 * A scheduler whose requests are traced: `run()`, `acquire()` and `tryAcquire()` as the scheduler's,
 * each making an `llm_scheduler.request` span (a child of the active context) with a child
 * `llm_scheduler.queue` span over the wait; `run()` calls the task inside the request span's context,
 * so the upstream call it makes is the request span's child. Hand {@link TracedScheduler.scheduler} to
 * an adapter to trace its requests too. Made by {@link traceScheduler}.
 *
 * @example
 * const traced = traceScheduler(scheduler, { tracer });
 * app.use("/v1", schedulerMiddleware({ scheduler: traced.scheduler }));
 */
export class TracedScheduler {
  readonly #scheduler: Scheduler;
  readonly #options: ResolvedTraceOptions;
  /** Traces waiting or running with a known id: for retries, first bytes, preemptions and permits' endings. */
  readonly #open = new OpenTraces();
  /** Permits' traces, whose endings come as events. */
  readonly #permits = new WeakMap<Permit, RequestTrace>();
  readonly #permitIds = new Set<RequestTrace>();
  /** The scheduler listeners, attached with the first span that records (never without an SDK). */
  #stops: Array<() => void> | null = null;
  #stopped = false;
  /** The same scheduler with `run`, `acquire` and `tryAcquire` traced, for the adapters. */
  readonly scheduler: Scheduler;

  constructor(scheduler: Scheduler, options: TraceOptions) {
    this.#scheduler = scheduler;
    this.#options = resolveShape(TRACE, options);
    this.scheduler = facadeOf(scheduler, this);
  }

  /**
   * Listens for retries, first bytes, preemptions and permits' endings. Deferred to the first recording span, so
   * that with no SDK installed (or everything sampled out) the scheduler has no listener to build
   * events for, and the adapters measure no first byte.
   */
  #listen(): void {
    if (this.#stops !== null || this.#stopped) return;
    const scheduler = this.#scheduler;
    this.#stops = [
      scheduler.on("queued", (event) => {
        if (event.retry) this.#open.first(event.id)?.retried();
      }),
      scheduler.on("firstByte", (event) => this.#open.first(event.id)?.firstByte(event.ttfbMs)),
      scheduler.on("preempted", (event) => this.#preempted(event)),
      scheduler.on("completed", (event) => this.#permitEnded(event.id, true, undefined)),
      scheduler.on("failed", (event) => this.#permitEnded(event.id, false, event)),
    ];
  }

  /**
   * `scheduler.run()`, traced; `fn` runs inside the request span's context.
   *
   * @example
   * const reply = await traced.run(({ signal }) => fetch(url, { signal }), { priority: "batch" });
   */
  run<T>(fn: TaskFunction<T>, options: TaskOptions = {}): Promise<T> {
    const parent = context.active();
    const trace = this.#start(options, parent);
    if (trace === undefined) {
      // Nothing recorded: the task still runs in its caller's context, not in whichever request's
      // release happened to start it.
      return this.#scheduler.run((task) => context.with(parent, fn, undefined, task), options);
    }
    const given = options?.id;
    if (given !== undefined) this.#open.add(given, trace);
    // Also known by the id the scheduler gave it (its own number, or a long id hashed), which the
    // events carry, once it starts: a preemption names that one.
    let own: string | undefined;
    const forget = (): void => {
      if (given !== undefined) this.#open.remove(given, trace);
      if (own !== undefined) this.#open.remove(own, trace);
    };
    const traced: TaskFunction<T> = (task) => {
      if (own === undefined && task.id !== given) {
        own = task.id;
        this.#open.add(own, trace);
      }
      trace.started(task.waitMs, task.priority, task.id);
      return context.with(trace.context, fn, undefined, task);
    };
    return this.#scheduler.run(traced, options).then(
      (value) => {
        forget();
        trace.ended(true);
        return value;
      },
      (error: unknown) => {
        forget();
        trace.ended(false, error);
        throw error;
      },
    );
  }

  /**
   * `scheduler.acquire()`, traced; the request span ends when the permit is released (or aborted).
   *
   * @example
   * const permit = await traced.acquire({ priority: "interactive", signal });
   * await traced.within(permit, () => streamUpstream(permit.signal));
   * permit.release();
   */
  acquire(options: TaskOptions = {}): Promise<Permit> {
    const trace = this.#start(options, context.active());
    if (trace === undefined) return this.#scheduler.acquire(options);
    return this.#scheduler.acquire(options).then(
      (permit) => this.#granted(permit, trace),
      (error: unknown) => {
        trace.ended(false, error);
        throw error;
      },
    );
  }

  /**
   * `scheduler.tryAcquire()`, traced when it grants a permit (otherwise nothing is recorded: the
   * caller's `acquire()` that follows makes the span).
   *
   * @example
   * const permit = traced.tryAcquire({ priority: "interactive" }) ?? (await traced.acquire({ priority: "interactive", signal }));
   */
  tryAcquire(options: TaskOptions = {}): Permit | undefined {
    const permit = this.#scheduler.tryAcquire(options);
    if (permit === undefined) return undefined;
    const trace = this.#start(options, context.active());
    return trace === undefined ? permit : this.#granted(permit, trace);
  }

  /**
   * Runs `fn` inside the request span of `permit` (from this traced scheduler), so the upstream call it
   * makes is that span's child; runs it as it is for any other permit.
   *
   * @example
   * const { permit, signal } = req.llmScheduler!;
   * const upstream = await traced.within(permit, () => fetch(url, { signal }));
   */
  within<T>(permit: Permit, fn: () => T): T {
    const trace = this.#permits.get(permit);
    return trace === undefined ? fn() : context.with(trace.context, fn);
  }

  /** Stops tracing: removes the scheduler listeners (open spans end when their requests do). */
  stop(): void {
    this.#stopped = true;
    for (const stop of this.#stops ?? []) stop();
    this.#stops = null;
  }

  #start(options: TaskOptions, parent: Context): RequestTrace | undefined {
    const trace = RequestTrace.start(
      this.#options,
      this.#scheduler.options.defaultPriority,
      options ?? {},
      parent,
    );
    if (trace !== undefined) this.#listen();
    return trace;
  }

  #granted(permit: Permit, trace: RequestTrace): Permit {
    trace.started(permit.waitMs, permit.priority, permit.id);
    this.#permits.set(permit, trace);
    this.#open.add(permit.id, trace);
    this.#permitIds.add(trace);
    return permit;
  }

  /**
   * A running task was preempted: a span event on its request span. A `run()` task runs again inside
   * that span; a permit's request is over (its holder answers 503 and releases it, which emits no
   * further event), so its span ends now, with outcome `preempted`.
   */
  #preempted(event: SchedulerEvents["preempted"]): void {
    const trace = this.#open.first(event.id);
    if (trace === undefined) return;
    trace.preempted(event.runMs, event.by, event.preemptions);
    if (!this.#permitIds.has(trace)) return;
    this.#open.remove(event.id, trace);
    this.#permitIds.delete(trace);
    trace.ended(false, undefined, ErrorCode.PREEMPTED);
  }

  /** A permit's task completed or failed (events carry its id): its span ends. */
  #permitEnded(id: string, ok: boolean, failure: SchedulerEvents["failed"] | undefined): void {
    const trace = this.#open.first(id);
    if (trace === undefined || !this.#permitIds.has(trace)) return;
    this.#open.remove(id, trace);
    this.#permitIds.delete(trace);
    trace.ended(ok, failure?.error, failure?.code);
  }
}

/**
 * Traces a scheduler's requests with OpenTelemetry (the API only: install any SDK). Returns a
 * {@link TracedScheduler}: call its `run()` instead of the scheduler's, and hand its `scheduler` to an
 * adapter. Throws `INVALID_OPTION` for a wrong option.
 *
 * @example
 * import { trace } from "@opentelemetry/api";
 * const traced = traceScheduler(scheduler, { tracer: trace.getTracer("gateway") });
 * await traced.run(({ signal }) => fetch(url, { signal })); // the fetch's span is the request span's child
 * app.use("/v1", schedulerMiddleware({ scheduler: traced.scheduler }));
 */
export function traceScheduler(scheduler: Scheduler, options: TraceOptions): TracedScheduler {
  return new TracedScheduler(scheduler, options);
}
