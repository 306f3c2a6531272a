import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { flush } from "../test/harness.js";
import { VirtualClock } from "./clock.js";
import { createScheduler } from "./scheduler.js";

type Op =
  | { kind: "submit"; priority: "chat" | "batch"; tenant: "a" | "b" | "c"; tokens: number }
  | { kind: "settle"; index: number }
  | { kind: "advance"; ms: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("submit" as const),
      priority: fc.constantFrom("chat" as const, "batch" as const, "batch" as const),
      tenant: fc.constantFrom("a" as const, "b" as const, "c" as const),
      tokens: fc.integer({ min: 0, max: 600 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("settle" as const), index: fc.nat(40) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 500 }) }),
  },
);

/** Over all runs: the scenarios did preempt, and did meet arrivals that could not be helped. */
const seen = { preemptions: 0 };

/**
 * Tenants with a cap of one and two, a token budget, polite victims (they stop as soon as their signal
 * fires): every preemption must hand its slot to a chat arrival, so the next start after it is chat's.
 */
async function runScenario(ops: Op[]): Promise<void> {
  const clock = new VirtualClock();
  const scheduler = createScheduler({
    clock,
    maxConcurrency: 3,
    maxTokensInFlight: 1_000,
    tenants: { a: { maxConcurrency: 1 }, b: { maxConcurrency: 2 } },
    priorities: {
      chat: { weight: 5, preempts: ["batch"] },
      batch: { weight: 1, queueTimeoutMs: 3_600_000, preemptible: { maxPerTask: 3 } },
    },
  });
  /** Priorities of the starts since the last preemption, while one is open. */
  let open: string[] | null = null;
  scheduler.on("preempted", () => {
    expect(open).toBeNull(); // one victim at a time, each answered by a start before the next
    open = [];
    seen.preemptions++;
  });
  scheduler.on("started", (event) => {
    if (open === null) return;
    expect(event.priority).toBe("chat");
    open = null;
  });
  const finishers: Array<(() => void) | null> = [];
  const submit = ({ priority, tenant, tokens }: Extract<Op, { kind: "submit" }>): void => {
    const index = finishers.length;
    finishers.push(null);
    scheduler
      .run(
        ({ signal }) =>
          new Promise<void>((resolve, reject) => {
            finishers[index] = resolve;
            signal.addEventListener("abort", () => reject(signal.reason));
          }),
        { priority, tenant, tokens },
      )
      .catch(() => {});
  };
  for (const step of ops) {
    if (step.kind === "submit") submit(step);
    else if (step.kind === "settle") finishers[step.index % Math.max(1, finishers.length)]?.();
    else clock.advance(step.ms);
    await flush();
    expect(open).toBeNull();
  }
  for (const finish of finishers) finish?.();
  await scheduler.close({ timeoutMs: 0 });
}

describe("preemption stops only victims whose slot the arrival takes (property)", () => {
  it("hands every victim's slot to a chat arrival, whatever tenant caps and token budget say", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 50 }), (ops) => runScenario(ops)),
      { numRuns: 200 },
    );
    expect(seen.preemptions).toBeGreaterThan(30);
  });
});
