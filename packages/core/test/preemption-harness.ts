import type { SchedulerEvents } from "../src/events.js";
import type { TaskOptions } from "../src/index.js";
import { Harness } from "./harness.js";

/** Interactive preempts batch; batch waits up to an hour and may be preempted twice per task. */
export const preemptionLanes = {
  interactive: { weight: 5, preempts: ["batch"] },
  batch: { weight: 1, queueTimeoutMs: 3_600_000, preemptible: { maxPerTask: 2 } },
};

/** A harness on {@link preemptionLanes} that records every `preempted` event. */
export function preemptionHarness(options: ConstructorParameters<typeof Harness>[0] = {}) {
  const h = new Harness({ maxConcurrency: 2, priorities: preemptionLanes, abortGraceMs: 5_000, ...options });
  const preempted: Array<SchedulerEvents["preempted"]> = [];
  h.scheduler.on("preempted", (event) => preempted.push(event));
  return { h, preempted };
}

/**
 * A task that stops as soon as its signal fires (what a well-behaved upstream call does); every run is
 * recorded in `h.startOrder` and can be finished through `h.gates`.
 */
export function polite(h: Harness, name: string, options: TaskOptions = { priority: "batch" }) {
  return h.scheduler.run(
    (context) =>
      new Promise((resolve, reject) => {
        h.startOrder.push(name);
        context.signal.addEventListener("abort", () => reject(context.signal.reason));
        h.gates.set(name, {
          name,
          started: true,
          signal: context.signal,
          finish: (value?: unknown) => resolve(value ?? name),
          fail: reject,
        });
      }),
    { id: name, ...options },
  );
}
