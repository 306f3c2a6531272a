import { createScheduler, type Scheduler, type TaskOptions, VirtualClock } from "@llm-scheduler/core";
import { createBatches, type ServedBatches } from "../src/index.js";
import type { Execute, ExecuteContext, ExecuteResult } from "../src/types.js";

/** Lets every pending promise callback and store call run (no wall-clock time passes). */
export async function flush(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Moves virtual time forward in steps, letting promises run after each. */
export async function advance(clock: VirtualClock, ms: number, step = 50): Promise<void> {
  for (let moved = 0; moved < ms; moved += step) {
    clock.advance(Math.min(step, ms - moved));
    await flush(3);
  }
  await flush();
}

/** An executor scripted per call: `answer(context)` decides each attempt's reply. */
export function scripted(answer: (context: ExecuteContext) => ExecuteResult | Promise<ExecuteResult>): {
  execute: Execute;
  calls: ExecuteContext[];
} {
  const calls: ExecuteContext[] = [];
  return {
    calls,
    execute: async (context) => {
      calls.push(context);
      return answer(context);
    },
  };
}

/** An answer that never comes until the attempt's signal fires. */
export function hang(context: ExecuteContext): Promise<ExecuteResult> {
  return new Promise((_, reject) => {
    context.signal.addEventListener("abort", () => reject(context.signal.reason), { once: true });
  });
}

export const ok = (context: ExecuteContext): ExecuteResult => ({
  status: 200,
  body: { echo: context.item.customId },
});

/** A virtual-time scheduler and batch layer; `runs` records the options of every `run()` call. */
export function setup(execute: Execute, extra: Partial<Parameters<typeof createBatches>[0]> = {}) {
  const clock = new VirtualClock(1_000_000);
  const scheduler: Scheduler = createScheduler({ clock, maxConcurrency: 4 });
  const runs: TaskOptions[] = [];
  const run = scheduler.run.bind(scheduler);
  scheduler.run = ((fn, options) => {
    runs.push(options ?? {});
    return run(fn, options);
  }) as Scheduler["run"];
  const errors: unknown[] = [];
  const batches: ServedBatches = createBatches({
    scheduler,
    execute,
    random: () => 0.5,
    onError: (error) => errors.push(error),
    ...extra,
  });
  return { clock, scheduler, batches, runs, errors };
}

/** `n` chat items `q-0` … `q-(n-1)`. */
export function items(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    customId: `q-${i}`,
    url: "/v1/chat/completions",
    body: { model: "m", messages: [{ role: "user", content: `question ${i}` }] },
  }));
}
