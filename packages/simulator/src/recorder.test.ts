import { VirtualClock } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { Recorder } from "./recorder.js";
import type { RequestSpec } from "./workload.js";

const spec = (key: string, kind: "chat" | "batch"): RequestSpec => ({
  key,
  kind,
  at: 0,
  priority: kind === "chat" ? "interactive" : "batch",
  tenant: kind,
  promptTokens: 1,
  maxTokens: 1,
});

/** One request through the gateway: arrives at `from`, starts at once, holds its slot until `to`. */
function serve(clock: VirtualClock, recorder: Recorder, key: string, kind: "chat" | "batch", to: number) {
  const record = recorder.open(spec(key, kind));
  const priority = record.spec.priority;
  recorder.attempt(record);
  recorder.arrived(priority);
  recorder.queueWait(priority, 0, true);
  return () => {
    clock.advanceTo(to);
    recorder.released(priority);
    recorder.close(record, "answered");
  };
}

describe("Recorder slot use", () => {
  it("counts chat work only within the batch window, first batch item sent to last one settled", () => {
    const clock = new VirtualClock(0);
    const recorder = new Recorder(clock, { capacity: 2 });
    const endChat = serve(clock, recorder, "chat-0", "chat", 50); // chat runs 0-50
    clock.advanceTo(20);
    const endBatch = serve(clock, recorder, "batch-0", "batch", 100); // batch runs 20-100
    endChat();
    endBatch();
    clock.advanceTo(150);
    serve(clock, recorder, "chat-1", "chat", 200)(); // chat runs 150-200, after the batch
    const slots = recorder.slots();
    expect(slots.busyMs).toEqual({ interactive: 50 + 50, batch: 80 });
    expect(slots.busyInBatchWindowMs).toEqual({ interactive: 30, batch: 80 }); // chat 20-50 only
    expect(slots.waitingMs).toBe(0); // nothing ever waited
  });

  it("has an empty batch window when no batch item was sent", () => {
    const clock = new VirtualClock(0);
    const recorder = new Recorder(clock);
    serve(clock, recorder, "chat-0", "chat", 10)();
    expect(recorder.slots().busyInBatchWindowMs).toEqual({});
  });
});
