import { VirtualClock } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { ClientTimeout, Driver } from "./driver.js";
import { Recorder } from "./recorder.js";
import { resolveScenario } from "./scenario-resolve.js";
import type { Attempt, AttemptHooks, Transport } from "./transport.js";
import type { Workload } from "./workload.js";

const scenario = resolveScenario({
  durationMs: 1_000,
  chat: { timeoutMs: 500, retries: 2, retryDelayMs: 100 },
});

const workload: Workload = {
  requests: [
    {
      key: "chat-0",
      kind: "chat",
      at: 10,
      priority: "interactive",
      tenant: "chat",
      promptTokens: 5,
      maxTokens: 5,
    },
  ],
  chatCount: 1,
  batchCount: 0,
};

/** A transport that only records what it was sent; the test answers by hand. */
function setup() {
  const clock = new VirtualClock(0);
  const sent: { attempt: Attempt; hooks: AttemptHooks; at: number }[] = [];
  const transport: Transport = { send: (attempt, hooks) => sent.push({ attempt, hooks, at: clock.now() }) };
  const recorder = new Recorder(clock);
  const driver = new Driver({ scenario, workload, clock, transport, recorder });
  driver.start();
  return { clock, sent, recorder, driver };
}

describe("Driver", () => {
  it("sends at the request's time, gives up after the timeout, cancels and retries", () => {
    const { clock, sent, recorder, driver } = setup();
    clock.advanceTo(9);
    expect(sent).toHaveLength(0);
    clock.advanceTo(10);
    expect(sent[0]?.attempt).toMatchObject({ id: "chat-0#0", number: 0 });
    clock.advanceTo(510);
    expect(sent[0]?.attempt.signal.aborted).toBe(true);
    expect(sent[0]?.attempt.signal.reason).toBeInstanceOf(ClientTimeout);
    expect(recorder.counters.chat.timeouts).toBe(1);
    clock.advanceTo(610);
    expect(sent[1]?.attempt).toMatchObject({ id: "chat-0#1", number: 1 });
    sent[0]!.hooks.completed(); // a late answer to the abandoned attempt changes nothing
    expect(driver.finished).toBe(false);
    clock.advanceTo(650);
    sent[1]!.hooks.firstToken();
    clock.advanceTo(5_000); // the timeout no longer applies once tokens flow
    sent[1]!.hooks.completed();
    expect(driver.finished).toBe(true);
    expect(recorder.records[0]).toMatchObject({
      outcome: "answered",
      attempts: 2,
      sentAt: 10,
      firstTokenAt: 650,
    });
    expect(recorder.counters.chat.retries).toBe(1);
  });

  it("waits the gateway's retry-after-ms after an error answer", () => {
    const { clock, sent, recorder } = setup();
    clock.advanceTo(20);
    sent[0]!.hooks.failed({ status: 429, retryAfterMs: 300, message: "queue full" });
    clock.advanceTo(319);
    expect(sent).toHaveLength(1);
    clock.advanceTo(320);
    expect(sent).toHaveLength(2);
    expect(recorder.counters.chat.statuses).toEqual({ 429: 1 });
  });

  it("gives up for good when the retries are spent", () => {
    const { clock, sent, recorder, driver } = setup();
    let finished = false;
    driver.onFinished(() => {
      finished = true;
    });
    clock.runUntilIdle();
    expect(sent).toHaveLength(3);
    expect(finished).toBe(true);
    expect(recorder.records[0]).toMatchObject({
      outcome: "unanswered",
      attempts: 3,
      firstTokenAt: undefined,
    });
    expect(recorder.settled.chat).toBe(1);
  });
});
