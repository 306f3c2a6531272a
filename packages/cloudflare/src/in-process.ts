import type { ObjectContext, ObjectStorage } from "./object-storage.js";
import type { ObjectNamespace } from "./options.js";
import { SchedulerObject } from "./scheduler-object.js";

/** Storage kept in this process: values copied in and out (as Workers serializes them), alarms as timers. */
class ProcessStorage implements ObjectStorage {
  readonly #values = new Map<string, unknown>();
  readonly #onAlarm: () => void;
  #alarm: { at: number; timer: ReturnType<typeof setTimeout> } | null = null;

  constructor(onAlarm: () => void) {
    this.#onAlarm = onAlarm;
  }

  async get<T>(key: string): Promise<T | undefined> {
    return structuredClone(this.#values.get(key)) as T | undefined;
  }

  async list<T>({ prefix }: { prefix: string }): Promise<Map<string, T>> {
    const found = new Map<string, T>();
    for (const [key, value] of this.#values)
      if (key.startsWith(prefix)) found.set(key, structuredClone(value) as T);
    return found;
  }

  async put(key: string, value: unknown): Promise<void> {
    this.#values.set(key, structuredClone(value));
  }

  async delete(key: string): Promise<boolean> {
    return this.#values.delete(key);
  }

  async getAlarm(): Promise<number | null> {
    return this.#alarm?.at ?? null;
  }

  async setAlarm(at: number): Promise<void> {
    if (this.#alarm !== null) clearTimeout(this.#alarm.timer);
    const timer = setTimeout(
      () => {
        this.#alarm = null;
        this.#onAlarm();
      },
      Math.max(0, at - Date.now()),
    );
    (timer as { unref?: () => void }).unref?.();
    this.#alarm = { at, timer };
  }
}

/**
 * A namespace whose {@link SchedulerObject}s live in this process (storage in memory, alarms as
 * timers): for running a Worker's scheduling code under Node, in tests or locally. Stores given the
 * same namespace and name share one object, as isolates share one on Workers. On Workers, pass the
 * Durable Object binding instead.
 *
 * @example
 * const namespace = inProcessNamespace();
 * const a = createScheduler({ maxConcurrency: 2, store: new DurableObjectStore({ namespace }) });
 * const b = createScheduler({ maxConcurrency: 2, store: new DurableObjectStore({ namespace }) }); // shares a's 2 slots
 */
export function inProcessNamespace(): ObjectNamespace<string> {
  const objects = new Map<string, { object: SchedulerObject; ready: Promise<unknown> }>();
  const open = (name: string) => {
    let entry = objects.get(name);
    if (entry === undefined) {
      let ready: Promise<unknown> = Promise.resolve();
      const storage = new ProcessStorage(() => object.alarm());
      const ctx: ObjectContext = {
        storage,
        blockConcurrencyWhile: (callback) => {
          const done = callback();
          ready = done;
          return done;
        },
      };
      const object: SchedulerObject = new SchedulerObject(ctx);
      entry = { object, ready };
      objects.set(name, entry);
    }
    return entry;
  };
  return {
    idFromName: (name) => name,
    get: (name) => ({
      async fetch(url, init) {
        const { object, ready } = open(name);
        await ready; // calls wait for the object's restore, as Workers holds them
        return object.fetch(new Request(url, init));
      },
    }),
  };
}
