import { invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import type { Tracer } from "@opentelemetry/api";

/**
 * Options of `traceScheduler()`.
 *
 * @example
 * const options: TraceOptions = { tracer: trace.getTracer("gateway"), tenant: true };
 */
export interface TraceOptions {
  /** Where spans are made: `trace.getTracer("my-gateway")`. */
  readonly tracer: Tracer;
  /** Adds the `llm_scheduler.tenant` attribute (a tenant may be a customer's name). @default false */
  readonly tenant?: boolean;
}

/** {@link TraceOptions} after defaults and checks. */
export interface ResolvedTraceOptions {
  readonly tracer: Tracer;
  readonly tenant: boolean;
}

/** Checks every option up front; a wrong one throws a `SchedulerError` (`INVALID_OPTION`). */
export function resolveTraceOptions(given: TraceOptions): ResolvedTraceOptions {
  if (typeof given !== "object" || given === null) throw invalidOption("options", "an object", given);
  rejectUnknownKeys("", given as unknown as Record<string, unknown>, ["tracer", "tenant"]);
  const { tracer, tenant = false } = given;
  if (typeof (tracer as { startSpan?: unknown } | undefined)?.startSpan !== "function") {
    throw invalidOption("tracer", "an OpenTelemetry Tracer (trace.getTracer(name))", tracer);
  }
  if (typeof tenant !== "boolean") throw invalidOption("tenant", "a boolean", tenant);
  return { tracer, tenant };
}
