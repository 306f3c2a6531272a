import { createScheduler, type TaskContext, VirtualClock } from "@llm-scheduler/core";
import { context, SpanStatusCode } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
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

function setUp() {
  const clock = new VirtualClock();
  const scheduler = createScheduler({
    clock,
    maxConcurrency: 1,
    priorities: { interactive: { preempts: ["batch"] }, batch: {} },
  });
  return { clock, scheduler, traced: traceScheduler(scheduler, { tracer }) };
}

function requestOf(priority: string): ReadableSpan {
  const found = exporter
    .getFinishedSpans()
    .filter(
      (span) =>
        span.name === "llm_scheduler.request" && span.attributes["llm_scheduler.priority"] === priority,
    );
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** A batch task's work: its first run gives way when preempted (rejects on abort), its second is "done". */
function yieldsOnceThenDone(): { runs: number; run: (context: TaskContext) => Promise<string> } {
  const work = {
    runs: 0,
    run: ({ signal }: TaskContext) =>
      new Promise<string>((resolve, reject) => {
        work.runs++;
        if (work.runs === 1) signal.addEventListener("abort", () => reject(signal.reason));
        else resolve("done");
      }),
  };
  return work;
}

describe("traceScheduler: preemption", () => {
  it("records a preempted run() as a span event on its one request span, which runs again and completes", async () => {
    const { clock, traced } = setUp();
    const work = yieldsOnceThenDone();
    const batch = traced.run(work.run, { priority: "batch" });
    clock.advance(1_500);
    await expect(traced.run(() => "chat", { priority: "interactive" })).resolves.toBe("chat");
    await expect(batch).resolves.toBe("done");
    expect(work.runs).toBe(2);
    const span = requestOf("batch");
    const events = span.events.filter((event) => event.name === "llm_scheduler.preempted");
    expect(events).toHaveLength(1);
    expect(events[0]!.attributes).toEqual({
      "llm_scheduler.run_ms": 1_500,
      "llm_scheduler.preempted_by": "interactive",
      "llm_scheduler.preemptions": 1,
    });
    expect(span.attributes).toMatchObject({
      "llm_scheduler.preemptions": 1,
      "llm_scheduler.outcome": "completed",
    });
    expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(requestOf("interactive").events.some((event) => event.name === "llm_scheduler.preempted")).toBe(
      false,
    );
  });

  it("finds a run() by the id it was given", async () => {
    const { clock, traced } = setUp();
    const batch = traced.run(yieldsOnceThenDone().run, { priority: "batch", id: "job-7" });
    clock.advance(200);
    await traced.run(() => "chat", { priority: "interactive" });
    await batch;
    const span = requestOf("batch");
    expect(span.attributes["llm_scheduler.id"]).toBe("job-7");
    expect(span.events.filter((event) => event.name === "llm_scheduler.preempted")).toHaveLength(1);
  });

  it("ends a preempted permit's request span at once, with outcome preempted", async () => {
    const { clock, scheduler, traced } = setUp();
    const permit = await traced.acquire({ priority: "batch" });
    clock.advance(300);
    const chat = traced.run(() => "chat", { priority: "interactive" });
    expect(permit.signal.aborted).toBe(true);
    const span = requestOf("batch"); // ended before the holder lets go
    permit.release();
    await expect(chat).resolves.toBe("chat");
    expect(scheduler.metrics().running).toBe(0);
    expect(span.attributes["llm_scheduler.outcome"]).toBe("preempted");
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: "PREEMPTED" });
    const event = span.events.find((entry) => entry.name === "llm_scheduler.preempted");
    expect(event?.attributes).toMatchObject({
      "llm_scheduler.run_ms": 300,
      "llm_scheduler.preempted_by": "interactive",
    });
    expect(
      exporter.getFinishedSpans().filter((entry) => entry.name === "llm_scheduler.request"),
    ).toHaveLength(2);
  });
});
