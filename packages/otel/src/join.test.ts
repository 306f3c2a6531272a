import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { joinByReader, joinTrace } from "./join.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const traceparent = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
const tracer = new BasicTracerProvider().getTracer("join");

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});
afterAll(() => {
  context.disable();
  propagation.disable();
});

const traceIdInside = () => trace.getSpanContext(context.active())?.traceId;

describe("joinTrace / joinByReader", () => {
  it("runs next inside the client's trace, from Node's headers, web Headers or a header reader", () => {
    expect(joinTrace({ traceparent }, traceIdInside)).toBe(TRACE_ID);
    expect(joinTrace({ traceparent: [traceparent] }, traceIdInside)).toBe(TRACE_ID);
    expect(joinTrace(new Headers({ traceparent }), traceIdInside)).toBe(TRACE_ID);
    expect(joinByReader((name) => (name === "traceparent" ? traceparent : undefined), traceIdInside)).toBe(
      TRACE_ID,
    );
    expect(joinTrace({}, traceIdInside)).toBeUndefined();
  });

  it("keeps an active span (HTTP instrumentation has joined the trace already)", () => {
    const server = tracer.startSpan("server");
    const inside = context.with(trace.setSpan(context.active(), server), () =>
      joinTrace({ traceparent }, traceIdInside),
    );
    expect(inside).toBe(server.spanContext().traceId);
    expect(inside).not.toBe(TRACE_ID);
  });
});
