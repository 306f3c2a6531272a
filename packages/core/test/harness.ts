import {
  createScheduler,
  type Scheduler,
  type SchedulerOptions,
  type TaskContext,
  VirtualClock,
} from "../src/index.js";

/** Lets pending promise callbacks run (no timers involved). */
export async function flush(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}

/** A task under test control: records when it starts and finishes only when told to. */
export interface Gate {
  readonly name: string;
  started: boolean;
  signal: AbortSignal | null;
  finish(value?: unknown): void;
  fail(error: unknown): void;
}

/**
 * A scheduler on a virtual clock plus a register of controllable tasks, so tests can say exactly when
 * each task ends and read the order in which tasks started.
 */
export class Harness {
  readonly clock = new VirtualClock(1_000);
  readonly scheduler: Scheduler;
  readonly startOrder: string[] = [];
  readonly gates = new Map<string, Gate>();
  readonly outcomes = new Map<string, { ok: boolean; value: unknown }>();

  constructor(options: SchedulerOptions = {}) {
    this.scheduler = createScheduler({ clock: this.clock, ...options });
  }

  /** A task function named `name` that stays running until `finish(name)`. */
  task(name: string): (context: TaskContext) => Promise<unknown> {
    return (context) =>
      new Promise((resolve, reject) => {
        this.startOrder.push(name);
        this.gates.set(name, {
          name,
          started: true,
          signal: context.signal,
          finish: (value?: unknown) => resolve(value ?? name),
          fail: reject,
        });
      });
  }

  /** Submits a controllable task and records how its promise settles. */
  submit(name: string, options: Parameters<Scheduler["run"]>[1] = {}): Promise<unknown> {
    const promise = this.scheduler.run(this.task(name), options);
    promise.then(
      (value) => this.outcomes.set(name, { ok: true, value }),
      (value: unknown) => this.outcomes.set(name, { ok: false, value }),
    );
    return promise;
  }

  async finish(name: string, value?: unknown): Promise<void> {
    const gate = this.gates.get(name);
    if (gate === undefined) throw new Error(`task ${name} has not started`);
    gate.finish(value);
    await flush();
  }

  /** Finishes the oldest running task, repeatedly, until `count` tasks have finished. */
  async finishInOrder(count: number): Promise<void> {
    for (let done = 0; done < count; done++) {
      const running = this.startOrder.find((name) => !this.outcomes.has(name) && this.gates.has(name));
      if (running === undefined) return;
      await this.finish(running);
    }
  }

  errorCode(name: string): string | undefined {
    const outcome = this.outcomes.get(name);
    return outcome && !outcome.ok ? (outcome.value as { code?: string }).code : undefined;
  }
}
