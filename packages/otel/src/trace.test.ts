import { createScheduler, SchedulerError, VirtualClock } from "@llm-scheduler/core";
import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { traceScheduler } from "./traced-scheduler.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("test");

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});
beforeEach(() => exporter.reset());

function setUp(tenant = false) {
  const clock = new VirtualClock();
  const scheduler = createScheduler({
    clock,
    maxConcurrency: 1,
    priorities: { interactive: { maxQueue: 1 }, batch: {} },
  });
  return { clock, scheduler, traced: traceScheduler(scheduler, { tracer, tenant }) };
}

function spans(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name);
}

function only(name: string): ReadableSpan {
  const found = spans(name);
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe("traceScheduler: run()", () => {
  it("makes a request span with a queue child, and runs the task inside the request span", async () => {
    const { clock, scheduler, traced } = setUp();
    const holder = scheduler.tryAcquire()!;
    const result = traced.run(
      () => {
        const upstream = tracer.startSpan("upstream call");
        upstream.end();
        return "reply";
      },
      { priority: "batch", tenant: "team-a", id: "req-1" },
    );
    clock.advance(250);
    holder.release();
    expect(await result).toBe("reply");
    const request = only("llm_scheduler.request");
    const queue = only("llm_scheduler.queue");
    const upstream = only("upstream call");
    expect(queue.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(upstream.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(upstream.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(request.attributes).toMatchObject({
      "llm_scheduler.priority": "batch",
      "llm_scheduler.outcome": "completed",
      "llm_scheduler.wait_ms": 250,
      "llm_scheduler.id": "req-1",
    });
    expect(typeof request.attributes["llm_scheduler.run_ms"]).toBe("number");
    expect(request.attributes["llm_scheduler.tenant"]).toBeUndefined();
    expect(queue.attributes["llm_scheduler.wait_ms"]).toBe(250);
  });

  it("is a child of the caller's active span, and names the tenant when asked", async () => {
    const { traced } = setUp(true);
    const caller = tracer.startSpan("caller");
    await context.with(trace.setSpan(context.active(), caller), () => traced.run(() => 1, { tenant: "t1" }));
    caller.end();
    const request = only("llm_scheduler.request");
    expect(request.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
    expect(request.attributes["llm_scheduler.tenant"]).toBe("t1");
  });

  it("records a rejection as a span event with its code, and ends the queue span too", async () => {
    const { scheduler, traced } = setUp();
    const holder = scheduler.tryAcquire()!;
    const waiting = scheduler.run(() => 1);
    await expect(traced.run(() => 2)).rejects.toMatchObject({ code: "QUEUE_FULL" });
    const request = only("llm_scheduler.request");
    expect(request.attributes["llm_scheduler.outcome"]).toBe("queue_full");
    expect(request.status.code).toBe(SpanStatusCode.ERROR);
    expect(request.events.map((event) => event.name)).toEqual(["llm_scheduler.rejected"]);
    expect(request.events[0]!.attributes).toMatchObject({ "llm_scheduler.code": "QUEUE_FULL" });
    expect(request.events[0]!.attributes!["llm_scheduler.retry_after_ms"]).toBeGreaterThan(0);
    expect(only("llm_scheduler.queue").status.code).toBe(SpanStatusCode.ERROR);
    holder.release();
    await waiting;
  });

  it("names a run timeout as the outcome, and never records an error's message", async () => {
    const { clock, traced } = setUp();
    const slow = traced.run(
      ({ signal }) =>
        new Promise((_, reject) =>
          signal.addEventListener("abort", () => reject(new Error("key=sk-secret"))),
        ),
      { timeoutMs: 50 },
    );
    clock.advance(50);
    await expect(slow).rejects.toBeInstanceOf(SchedulerError);
    const failing = traced.run(() => Promise.reject(new Error("https://user:sk-secret@upstream")));
    await expect(failing).rejects.toThrow("sk-secret");
    const [timedOut, failed] = spans("llm_scheduler.request");
    expect(timedOut!.attributes["llm_scheduler.outcome"]).toBe("run_timeout");
    expect(failed!.attributes["llm_scheduler.outcome"]).toBe("failed");
    expect(
      JSON.stringify(exporter.getFinishedSpans().map((span) => [span.status, span.events])),
    ).not.toContain("sk-secret");
  });

  it("adds a retry event for a retry, given or recognised by its id", async () => {
    const { clock, scheduler, traced } = setUp();
    await traced.run(() => 1, { retry: true });
    const timedOut = traced.run(
      ({ signal }) => new Promise((_, reject) => signal.addEventListener("abort", reject)),
      {
        id: "again",
        timeoutMs: 10,
      },
    );
    clock.advance(10);
    await expect(timedOut).rejects.toMatchObject({ code: "RUN_TIMEOUT" });
    const holder = scheduler.tryAcquire()!;
    const resent = traced.run(() => 2, { id: "again", priority: "batch" }); // the scheduler remembers the id
    holder.release();
    await resent;
    const [given, first, second] = spans("llm_scheduler.request");
    expect(given!.events.map((event) => event.name)).toEqual(["llm_scheduler.retry"]);
    expect(first!.events).toEqual([]);
    expect(second!.events.map((event) => event.name)).toEqual(["llm_scheduler.retry"]);
  });
});

describe("traceScheduler when nothing is recorded", () => {
  it("makes no spans, and still runs a queued task in its caller's context", async () => {
    const sampledOut = new BasicTracerProvider({
      sampler: new AlwaysOffSampler(),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    }).getTracer("off");
    const scheduler = createScheduler({ maxConcurrency: 1 });
    const traced = traceScheduler(scheduler, { tracer: sampledOut });
    const holder = scheduler.tryAcquire()!;
    const caller = tracer.startSpan("caller");
    const seen = context.with(trace.setSpan(context.active(), caller), () =>
      traced.run(() => trace.getActiveSpan()),
    );
    holder.release(); // the grant happens here, outside the caller's context
    expect(await seen).toBe(caller);
    traced.tryAcquire()!.release();
    caller.end();
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(["caller"]);
  });
});

describe("traceScheduler: permits and the adapters' facade", () => {
  it("ends a permit's span when it is released, with its first byte as an event", async () => {
    const { clock, traced } = setUp();
    const permit = traced.tryAcquire({ id: "p1" })!;
    traced.within(permit, () => tracer.startSpan("upstream").end());
    clock.advance(80);
    permit.firstByte();
    expect(spans("llm_scheduler.request")).toHaveLength(0);
    permit.release();
    const request = only("llm_scheduler.request");
    expect(only("upstream").parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(request.attributes["llm_scheduler.outcome"]).toBe("completed");
    expect(request.events.map((event) => [event.name, event.attributes])).toEqual([
      ["llm_scheduler.first_byte", { "llm_scheduler.ttfb_ms": 80 }],
    ]);
  });

  it("ends an acquired permit's span as aborted when its holder aborts it", async () => {
    const { scheduler, traced } = setUp();
    const holder = scheduler.tryAcquire()!;
    const pending = traced.acquire({ priority: "batch" });
    holder.release();
    const permit = await pending;
    permit.abort(new Error("client gone"));
    permit.release();
    expect(only("llm_scheduler.request").attributes["llm_scheduler.outcome"]).toBe("aborted");
  });

  it("gives the adapters a scheduler whose requests are traced and whose other methods are its own", async () => {
    const { scheduler, traced } = setUp();
    const facade = traced.scheduler;
    expect(facade.options).toBe(scheduler.options);
    facade.tryAcquire()!.release();
    await facade.run(() => 1);
    expect(spans("llm_scheduler.request")).toHaveLength(2);
    expect(facade.metrics().completed).toBe(2);
    await facade.close();
    expect(scheduler.closed).toBe(true);
  });

  it("stop() removes its listeners, and bad options are refused with typed errors", async () => {
    const { scheduler, traced } = setUp();
    traced.stop();
    const permit = traced.tryAcquire()!;
    permit.release();
    expect(spans("llm_scheduler.request")).toHaveLength(0);
    expect(() => traceScheduler(scheduler, { tracer: {} as never })).toThrow(
      "Expected `tracer` to be an OpenTelemetry Tracer",
    );
    expect(() => traceScheduler(scheduler, { tracer, tenants: true } as never)).toThrow(
      "Unknown option `tenants`; did you mean `tenant`?",
    );
    expect(() => traceScheduler(scheduler, { tracer, tenant: "yes" } as never)).toThrow(SchedulerError);
  });
});

describe("traceScheduler with a tracer that throws", () => {
  it("runs the request untraced rather than failing it", async () => {
    const broken = {
      startSpan: () => {
        throw new Error("tracer broke");
      },
      startActiveSpan: () => undefined,
    } as never;
    const scheduler = createScheduler({ maxConcurrency: 1 });
    const traced = traceScheduler(scheduler, { tracer: broken });
    await expect(traced.run(() => "still served")).resolves.toBe("still served");
    const permit = traced.tryAcquire()!;
    permit.release();
    expect(scheduler.metrics().completed).toBe(2);
  });
});

describe("traceScheduler with no SDK installed", () => {
  it("adds no scheduler listener (so no event is built and no first byte measured) until a span records", async () => {
    const scheduler = createScheduler({ maxConcurrency: 1 });
    const untraced = traceScheduler(scheduler, { tracer: trace.getTracer("no-sdk") }); // no provider: no-op
    await expect(untraced.run(() => "served")).resolves.toBe("served");
    const quiet = untraced.tryAcquire()!;
    expect(quiet.wantsFirstByte).toBe(false);
    quiet.release();
    const traced = traceScheduler(scheduler, { tracer }); // an SDK's tracer: its first span attaches them
    const heard = traced.tryAcquire()!;
    expect(heard.wantsFirstByte).toBe(true);
    heard.release();
    expect(spans("llm_scheduler.request")).toHaveLength(1);
    traced.stop();
    const after = scheduler.tryAcquire()!;
    expect(after.wantsFirstByte).toBe(false);
    after.release();
  });
});
