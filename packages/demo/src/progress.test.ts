import { VirtualClock } from "@llm-scheduler/core";
import { Recorder, type Workload } from "@llm-scheduler/simulator";
import { describe, expect, it } from "vitest";
import { formatProgress, type PhaseProgress, phaseProgress } from "./progress.js";
import { progressWriter } from "./progress-writer.js";

const busy: PhaseProgress = {
  label: "llm-scheduler",
  elapsedMs: 12_345,
  etaMs: 61_000,
  chat: { answered: 1_234, gaveUp: 56, sent: 1_400 },
  batch: { done: 180, total: 2_600 },
  queued: 1_830,
  inFlight: 8,
};

describe("formatProgress", () => {
  it("shows everything, with the ETA, when the terminal is wide", () => {
    const line = formatProgress(busy, 200);
    expect(line).toBe(
      "[llm-scheduler] 12.3 s | ETA 61.0 s | chat 1234 answered, 56 gave up (1400 so far) | batch 180/2600 done | queued 1830 | in flight 8",
    );
  });

  it.each([10, 20, 40, 60, 80, 100, 120])(
    "never reaches the last column of a %i-column terminal",
    (columns) => {
      const line = formatProgress(busy, columns);
      expect(line.length).toBeLessThan(columns);
      expect(line.startsWith("[llm-sch")).toBe(true);
      if (columns >= 40) expect(line).toContain("ETA 61.0 s");
    },
  );

  it("ends with the slot use while anything waited, once it is known, and drops it first", () => {
    const line = formatProgress({ ...busy, busyWhileQueued: 0.8654 }, 200);
    expect(line.endsWith(" | in flight 8 | slots busy 86.5% while queued")).toBe(true);
    expect(formatProgress({ ...busy, busyWhileQueued: 0.8654 }, 130)).toMatch(/ \| busy 86\.5%$/);
    expect(formatProgress({ ...busy, busyWhileQueued: 0.8654 }, 80)).not.toContain("busy");
  });

  it("reads an unknown width as 80, and says ? for an ETA it cannot estimate yet", () => {
    const line = formatProgress({ ...busy, etaMs: undefined }, Number.NaN);
    expect(line.length).toBeLessThan(80);
    expect(line).toContain("ETA ?");
  });
});

describe("phaseProgress", () => {
  it("estimates the time left from the last send and the rate of requests settled", () => {
    const clock = new VirtualClock(0);
    const recorder = new Recorder(clock);
    const spec = (i: number) => ({
      key: `batch-${i}`,
      kind: "batch" as const,
      at: 0,
      priority: "batch",
      tenant: "etl",
      promptTokens: 1,
      maxTokens: 1,
    });
    const requests = [0, 1, 2, 3].map(spec);
    const workload: Workload = { requests, chatCount: 0, batchCount: 4 };
    const load = { queued: { batch: 3 }, running: { batch: 1 } };
    expect(phaseProgress("FIFO", recorder, workload, load).etaMs).toBeUndefined();
    const record = recorder.open(requests[0]!);
    clock.advance(1_000);
    recorder.close(record, "answered");
    const progress = phaseProgress("FIFO", recorder, workload, load);
    expect(progress.etaMs).toBe(3_000); // one settled per second, three to go
    expect(progress).toMatchObject({ batch: { done: 1, total: 4 }, queued: 3, inFlight: 1 });
    expect(progress.busyWhileQueued).toBeUndefined(); // nothing has waited at the gateway yet
  });

  it("reads the slot use so far from the recorder, against the gateway's limit", () => {
    const clock = new VirtualClock(0);
    const recorder = new Recorder(clock);
    const workload: Workload = { requests: [], chatCount: 0, batchCount: 0 };
    const load = { queued: {}, running: {} };
    recorder.arrived("batch");
    recorder.queueWait("batch", 0, true); // one runs
    recorder.arrived("batch"); // one waits
    clock.advance(1_000);
    // 1 of 4 slots busy for the second something waited.
    expect(phaseProgress("FIFO", recorder, workload, load, 4).busyWhileQueued).toBe(0.25);
  });
});

describe("progressWriter", () => {
  it("rewrites one line in place on a terminal, at the width it has now", () => {
    let out = "";
    let columns = 120;
    const writer = progressWriter({
      write: (text) => {
        out += text;
      },
      interactive: true,
      columns: () => columns,
    });
    writer.update(busy);
    columns = 40;
    writer.update(busy);
    writer.end();
    const lines = out.split("\r").filter((text) => text !== "");
    expect(lines).toHaveLength(3);
    for (const text of lines.slice(1)) {
      expect(text.replace("\u001b[K", "").trimEnd().length).toBeLessThan(40);
    }
    expect(out.endsWith("\n")).toBe(true);
  });
});
