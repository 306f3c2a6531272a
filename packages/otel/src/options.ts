import { boolean, type InferShape, methods, type Resolved, required } from "@llm-scheduler/core/kit";
import type { Tracer } from "@opentelemetry/api";

/** Options of `traceScheduler()`, declared once: checks, types and the README table come from here. */
export const TRACE = {
  tracer: required(
    methods<Tracer>(["startSpan"], {
      range: "an OpenTelemetry Tracer (trace.getTracer(name))",
      shownRange: "an OpenTelemetry `Tracer`",
      doc: 'where spans are made: `trace.getTracer("my-gateway")`',
    }),
  ),
  tenant: boolean({
    default: false,
    doc: "adds the `llm_scheduler.tenant` attribute (a tenant may be a customer's name)",
  }),
};

/**
 * Options of `traceScheduler()`.
 *
 * @example
 * const options: TraceOptions = { tracer: trace.getTracer("gateway"), tenant: true };
 */
export type TraceOptions = InferShape<typeof TRACE>;

/** {@link TraceOptions} after defaults and checks (`resolveShape(TRACE, options)`). */
export type ResolvedTraceOptions = Resolved<typeof TRACE>;
