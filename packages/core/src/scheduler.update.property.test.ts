import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DelayedStore } from "../test/delayed-store.js";
import { flush } from "../test/harness.js";
import { VirtualClock } from "./clock.js";
import { ErrorCode, SchedulerError } from "./errors.js";
import { MemoryStore } from "./memory/memory-store.js";
import type { PriorityOptions, SchedulerOptions, SchedulerUpdate } from "./options.js";
import { createScheduler, type Scheduler } from "./scheduler.js";
import type { Store, StoreConfig, StoreHost } from "./store.js";

/** The in-memory store, keeping every configuration it was given. */
class RecordingMemoryStore extends MemoryStore {
  readonly configs: StoreConfig[] = [];
  override configure(config: StoreConfig): void {
    this.configs.push(config);
    super.configure(config);
  }
}

/** A store without `handOver` that answers with promises (as the Redis store does), keeping its configurations. */
class RecordingRemoteStore extends DelayedStore {
  readonly configs: StoreConfig[] = [];
  override attach(host: StoreHost, config: StoreConfig): Promise<void> {
    this.configs.push(config);
    return super.attach(host, config as never);
  }
  override configure(config: StoreConfig): Promise<void> {
    this.configs.push(config);
    return super.configure(config as never);
  }
}

type Kind = "memory" | "remote";
type RecordingStore = Store & { readonly configs: StoreConfig[] };
const storeOf = (kind: Kind): RecordingStore =>
  kind === "memory" ? new RecordingMemoryStore() : new RecordingRemoteStore();

const NAMES = ["interactive", "batch", "extra"] as const;

/** Mostly `valid`, sometimes `invalid`: sequences then mix accepted and refused updates. */
const mostly = <T>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<T>): fc.Arbitrary<T> =>
  fc.oneof({ weight: 8, arbitrary: valid }, { weight: 1, arbitrary: invalid });

/** Priority fields, some of them out of range or naming what does not exist. */
const priorityPatch: fc.Arbitrary<PriorityOptions> = fc.record(
  {
    weight: mostly(fc.constantFrom(1, 2, 9), fc.constant(0)),
    reserved: fc.integer({ min: 0, max: 2 }),
    maxConcurrency: mostly(fc.integer({ min: 1, max: 6 }), fc.constant(0)),
    preempts: mostly<string[]>(fc.constantFrom(["batch"], ["interactive"]), fc.constant(["nope"])),
    targetWaitMs: mostly(fc.constantFrom(500, 2_000), fc.constant(-5)),
  },
  { requiredKeys: [] },
);

/** An update that may be valid or not: bad values, an unknown key, preemption a store cannot do. */
const fields = fc.record(
  {
    maxConcurrency: mostly(fc.integer({ min: 2, max: 6 }), fc.constant(0)),
    maxQueue: mostly(fc.constantFrom(100, Number.POSITIVE_INFINITY), fc.constant(0)),
    abortGraceMs: mostly(fc.constant(1_000), fc.constant(-1)),
    priorities: fc.dictionary(fc.constantFrom(...NAMES), priorityPatch, { maxKeys: 2 }),
  },
  { requiredKeys: [] },
);
const anUpdate: fc.Arbitrary<Record<string, unknown>> = mostly(
  fields,
  fields.map((update) => ({ ...update, bogus: 1 })),
);

/** The options as the user would have written them after the update: top-level fields replaced, priority fields merged. */
function merged(given: SchedulerOptions, update: Record<string, unknown>): SchedulerOptions {
  const priorities: Record<string, PriorityOptions> = { ...given.priorities };
  const patch = (update.priorities ?? {}) as Record<string, PriorityOptions>;
  for (const [name, fields] of Object.entries(patch)) priorities[name] = { ...priorities[name], ...fields };
  return { ...given, ...update, priorities } as SchedulerOptions;
}

/** Whether a new scheduler on the same kind of store would accept these options. */
async function acceptedAtCreation(options: SchedulerOptions, kind: Kind): Promise<boolean> {
  let scheduler: Scheduler;
  try {
    scheduler = createScheduler({ ...options, clock: new VirtualClock(), store: storeOf(kind) });
  } catch {
    return false;
  }
  await scheduler.close();
  return true;
}

/** The store works from what `scheduler.options` shows. */
function expectAgreement(scheduler: Scheduler, store: RecordingStore): void {
  const options = scheduler.options;
  const config = store.configs.at(-1)!;
  expect(config.maxConcurrency).toBe(options.maxConcurrency);
  expect(config.maxQueue).toBe(options.maxQueue);
  expect(config.priorities).toEqual(options.priorities);
  expect(Object.isFrozen(options)).toBe(true);
}

/** What the model says `scheduler.options` must show. */
function expectOptions(scheduler: Scheduler, given: SchedulerOptions): void {
  const options = scheduler.options;
  expect(options.maxConcurrency).toBe(given.maxConcurrency);
  for (const [name, fields] of Object.entries(given.priorities ?? {})) {
    const priority = options.priorityByName.get(name)!;
    for (const key of ["weight", "reserved", "maxConcurrency"] as const) {
      if (fields[key] !== undefined) expect(priority[key]).toBe(fields[key]);
    }
  }
  const preempting = Object.values(given.priorities ?? {}).some((fields) => fields.preempts !== undefined);
  expect(options.preemption !== null).toBe(preempting);
  const targets = Object.entries(given.priorities ?? {}).filter(
    ([, fields]) => fields.targetWaitMs !== undefined,
  );
  expect(scheduler.metrics().priorities).toMatchObject(
    Object.fromEntries(
      targets.map(([name, fields]) => [name, { share: { targetWaitMs: fields.targetWaitMs } }]),
    ),
  );
}

/**
 * Floods every priority with tasks that end when aborted: as many start as the options allow, no more
 * (each priority within its cap, all within the limit, and no slot idle while work waits).
 */
async function expectBehaviour(scheduler: Scheduler, clock: VirtualClock, kind: Kind): Promise<void> {
  const { maxConcurrency, priorities } = scheduler.options;
  const outcomes: Promise<unknown>[] = [];
  for (const { name } of priorities) {
    for (let i = 0; i < maxConcurrency + 1; i++) {
      const task = scheduler.run(
        ({ signal }) =>
          new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
        { priority: name },
      );
      outcomes.push(task.catch(() => undefined));
    }
  }
  await flush(kind === "remote" ? 200 : 20);
  const metrics = scheduler.metrics();
  const caps = priorities.reduce((sum, priority) => sum + priority.maxConcurrency, 0);
  expect(metrics.running).toBe(Math.min(maxConcurrency, caps));
  for (const priority of priorities) {
    expect(metrics.priorities[priority.name]!.running).toBeLessThanOrEqual(priority.maxConcurrency);
  }
  const closing = scheduler.close({ timeoutMs: 0 });
  for (let round = 0; round < 10; round++) {
    clock.advance(10_000);
    await flush(kind === "remote" ? 200 : 20);
  }
  await closing;
  await Promise.all(outcomes);
}

async function runSequence(kind: Kind, updates: Record<string, unknown>[]): Promise<void> {
  const clock = new VirtualClock();
  const store = storeOf(kind);
  let given: SchedulerOptions = {
    maxConcurrency: 4,
    priorities: { interactive: { weight: 5, reserved: 1 }, batch: { weight: 1 } },
  };
  const scheduler = createScheduler({ ...given, clock, store });
  await flush(kind === "remote" ? 20 : 1);
  for (const update of updates) {
    const next = merged(given, update);
    const valid = await acceptedAtCreation(next, kind);
    const before = scheduler.options;
    const configured = store.configs.length;
    let outcome: Promise<void> | undefined;
    let refusal: unknown;
    try {
      outcome = scheduler.update(update as SchedulerUpdate);
    } catch (error) {
      refusal = error;
    }
    if (refusal !== undefined) {
      expect(refusal).toBeInstanceOf(SchedulerError);
      expect(refusal).toMatchObject({ code: ErrorCode.INVALID_OPTION });
      expect(valid, `refused ${JSON.stringify(update)}: ${(refusal as Error).message}`).toBe(false);
      expect(scheduler.options).toBe(before);
      expect(store.configs.length).toBe(configured);
    } else {
      expect(valid, `accepted ${JSON.stringify(update)}`).toBe(true);
      await outcome;
      given = next;
      expectOptions(scheduler, given);
    }
    expectAgreement(scheduler, store);
  }
  await expectBehaviour(scheduler, clock, kind);
}

describe("update() under random sequences of valid and invalid updates", () => {
  const updates = fc.array(anUpdate, { minLength: 1, maxLength: 12 });

  it.each(["memory", "remote"] as const)(
    "accepts exactly what creation would, changes nothing when it refuses, and keeps options, store and behaviour agreeing (%s store)",
    async (kind) => {
      await fc.assert(
        fc.asyncProperty(updates, (sequence) => runSequence(kind, sequence)),
        { numRuns: kind === "memory" ? 200 : 100 },
      );
    },
    120_000,
  );
});
