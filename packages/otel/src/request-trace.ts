import { isSchedulerError, type TaskOptions } from "@llm-scheduler/core";
import { failedOutcome } from "@llm-scheduler/core/kit";
import { type Context, type Span, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import type { ResolvedTraceOptions } from "./options.js";

/**
 * Span and attribute names, so that queries and dashboards can rely on them.
 *
 * @example
 * spans.filter((span) => span.name === TraceNames.queue);
 */
export const Names = {
  request: "llm_scheduler.request",
  queue: "llm_scheduler.queue",
  priority: "llm_scheduler.priority",
  tenant: "llm_scheduler.tenant",
  id: "llm_scheduler.id",
  outcome: "llm_scheduler.outcome",
  waitMs: "llm_scheduler.wait_ms",
  runMs: "llm_scheduler.run_ms",
  ttfbMs: "llm_scheduler.ttfb_ms",
  retry: "llm_scheduler.retry",
  rejected: "llm_scheduler.rejected",
  firstByte: "llm_scheduler.first_byte",
  code: "llm_scheduler.code",
  retryAfterMs: "llm_scheduler.retry_after_ms",
  preempted: "llm_scheduler.preempted",
  preemptedBy: "llm_scheduler.preempted_by",
  preemptions: "llm_scheduler.preemptions",
} as const;

/** Codes that name how a started request ended (as in `@llm-scheduler/prometheus`); others are `failed`. */
/**
 * The spans of one request: `llm_scheduler.request` over its whole life and its child
 * `llm_scheduler.queue` over the wait. Only ids, names and timings are recorded: never a request's
 * contents or an error's message (which may echo a URL or a key), only its code or class name.
 */
export class RequestTrace {
  readonly span: Span;
  /** The request span's context: the task runs inside it, so upstream calls are its children. */
  readonly context: Context;
  #queue: Span | null;
  #ranAt = 0;

  private constructor(tracer: Tracer, span: Span, parent: Context, retry: boolean) {
    this.span = span;
    this.context = trace.setSpan(parent, span);
    this.#queue = tracer.startSpan(Names.queue, {}, this.context);
    if (retry) this.retried();
  }

  /**
   * Starts the request span as a child of `parent`; `undefined` when it records nothing (no SDK
   * installed, or sampled out), so that such a request costs one no-op span and nothing more.
   */
  static start(
    options: ResolvedTraceOptions,
    defaultPriority: string,
    task: TaskOptions,
    parent: Context,
  ): RequestTrace | undefined {
    const { tracer } = options;
    const attributes: Record<string, string> = { [Names.priority]: task.priority ?? defaultPriority };
    if (options.tenant && task.tenant !== undefined) attributes[Names.tenant] = task.tenant;
    if (task.id !== undefined) attributes[Names.id] = task.id;
    try {
      const span = tracer.startSpan(Names.request, { attributes }, parent);
      if (!span.isRecording()) return undefined;
      return new RequestTrace(tracer, span, parent, task.retry === true);
    } catch {
      return undefined; // a tracer that throws (the API says none should) leaves the request untraced
    }
  }

  /** The task got its slot after `waitMs`, as `priority` (the default one may have stood in). */
  started(waitMs: number, priority: string, id: string): void {
    this.#ranAt = performance.now();
    this.span.setAttributes({ [Names.waitMs]: waitMs, [Names.priority]: priority, [Names.id]: id });
    this.#queue?.setAttribute(Names.waitMs, waitMs);
    this.#queue?.end();
    this.#queue = null;
  }

  retried(): void {
    this.span.addEvent(Names.retry);
  }

  /**
   * The running task was stopped for a more urgent arrival: a span event with the run time thrown away,
   * the arrival's priority and this request's preemptions so far, which the span also keeps as an
   * attribute. A `run()` task then runs again inside this span; a permit's request ends.
   */
  preempted(runMs: number, by: string, preemptions: number): void {
    this.span.addEvent(Names.preempted, {
      [Names.runMs]: runMs,
      [Names.preemptedBy]: by,
      [Names.preemptions]: preemptions,
    });
    this.span.setAttribute(Names.preemptions, preemptions);
  }

  firstByte(ttfbMs: number): void {
    this.span.addEvent(Names.firstByte, { [Names.ttfbMs]: ttfbMs });
  }

  /** The request ended, well (`ok`) or with `error` (whose `code` the events may give instead). */
  ended(ok: boolean, error?: unknown, code: string | undefined = codeOf(error)): void {
    const { span } = this;
    if (this.#queue !== null) {
      this.#rejected(error, code);
    } else {
      const outcome = ok ? "completed" : failedOutcome(code);
      span.setAttributes({ [Names.outcome]: outcome, [Names.runMs]: performance.now() - this.#ranAt });
      if (!ok) span.setStatus({ code: SpanStatusCode.ERROR, message: code ?? nameOf(error) });
    }
    span.end();
  }

  /** Never started: the queue span ends too, and a span event says why. */
  #rejected(error: unknown, code: string | undefined): void {
    const outcome = code?.toLowerCase() ?? "failed";
    const retryAfterMs = isSchedulerError(error) ? error.retryAfterMs : undefined;
    const event: Record<string, string | number> = { [Names.code]: code ?? nameOf(error) };
    if (retryAfterMs !== undefined) event[Names.retryAfterMs] = retryAfterMs;
    this.span.addEvent(Names.rejected, event);
    this.span.setAttribute(Names.outcome, outcome);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: event[Names.code] as string });
    this.#queue!.setStatus({ code: SpanStatusCode.ERROR });
    this.#queue!.end();
    this.#queue = null;
  }
}

function codeOf(error: unknown): string | undefined {
  return isSchedulerError(error) ? error.code : undefined;
}

function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
