import { invalidOption } from "../validate.js";

/** A listener of the event `K` of the event map `M`, called with the arguments `emit()` was given. */
export type EmitterListener<M, K extends keyof M> = M[K] extends readonly unknown[]
  ? (...args: M[K]) => void
  : never;

interface Entry {
  readonly listener: unknown;
  readonly once: boolean;
}

/**
 * An event emitter with the semantics of Node's `EventEmitter`, built on plain arrays so that it runs on
 * every runtime (browsers, workers, Deno, Bun, Node): listeners run synchronously in the order they were
 * added; a `once` listener is removed before it runs; `off` removes the most recently added registration
 * of that function; listeners added or removed during an `emit` take effect from the next one; a listener
 * that throws stops that `emit` and the error reaches its caller; `emit("error", error)` with no `error`
 * listener throws `error`. `M` maps each event name to its argument tuple.
 *
 * @example
 * class Jobs extends EventEmitter<{ done: [id: string] }> {}
 * const jobs = new Jobs();
 * jobs.once("done", (id) => console.log("first done:", id));
 * jobs.emit("done", "a"); // logs "first done: a"; a second emit logs nothing
 */
export class EventEmitter<M extends { [K in keyof M]: readonly unknown[] }> {
  readonly #events = new Map<keyof M, Entry[]>();

  /** Adds `listener` at the end of the list for `name`; returns `this`. */
  on<K extends keyof M>(name: K, listener: EmitterListener<M, K>): this {
    return this.#add(name, { listener: checked(listener), once: false });
  }

  /** Alias of {@link EventEmitter.on}. */
  addListener<K extends keyof M>(name: K, listener: EmitterListener<M, K>): this {
    return this.on(name, listener);
  }

  /** Adds `listener` for the next `name` event only; it is removed before it runs. */
  once<K extends keyof M>(name: K, listener: EmitterListener<M, K>): this {
    return this.#add(name, { listener: checked(listener), once: true });
  }

  /** Removes the most recently added registration of `listener` for `name` (`on` or `once`); returns `this`. */
  off<K extends keyof M>(name: K, listener: EmitterListener<M, K>): this {
    const list = this.#events.get(name);
    if (list === undefined) return this;
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i]!.listener === listener) {
        if (list.length === 1) this.#events.delete(name);
        else this.#events.set(name, [...list.slice(0, i), ...list.slice(i + 1)]);
        break;
      }
    }
    return this;
  }

  /** Alias of {@link EventEmitter.off}. */
  removeListener<K extends keyof M>(name: K, listener: EmitterListener<M, K>): this {
    return this.off(name, listener);
  }

  /** Removes every listener of `name`, or of every event when no name is given. */
  removeAllListeners(name?: keyof M): this {
    if (name === undefined) this.#events.clear();
    else this.#events.delete(name);
    return this;
  }

  /**
   * Calls the listeners of `name` in order with `args`; true when there was at least one. A listener
   * that throws stops the rest and the error is thrown here; an `error` event nobody listens to throws
   * its first argument.
   */
  emit<K extends keyof M>(name: K, ...args: M[K]): boolean {
    const list = this.#events.get(name);
    if (list === undefined) {
      if (name === "error")
        throw args[0] instanceof Error ? args[0] : new Error(`Unhandled error: ${String(args[0])}`);
      return false;
    }
    for (const entry of list) {
      if (entry.once) this.#removeEntry(name, entry);
      (entry.listener as (...values: readonly unknown[]) => void)(...args);
    }
    return true;
  }

  /** How many listeners `name` has. */
  listenerCount(name: keyof M): number {
    return this.#events.get(name)?.length ?? 0;
  }

  /** A copy of the listeners of `name`, in call order. */
  listeners<K extends keyof M>(name: K): Array<EmitterListener<M, K>> {
    return (this.#events.get(name) ?? []).map((entry) => entry.listener as EmitterListener<M, K>);
  }

  /** The names that have at least one listener. */
  eventNames(): Array<keyof M> {
    return [...this.#events.keys()];
  }

  #add(name: keyof M, entry: Entry): this {
    const list = this.#events.get(name);
    // A new array on every change, so that an emit in progress keeps iterating the list it started with.
    this.#events.set(name, list === undefined ? [entry] : [...list, entry]);
    return this;
  }

  #removeEntry(name: keyof M, entry: Entry): void {
    const list = this.#events.get(name);
    if (list === undefined) return;
    const rest = list.filter((other) => other !== entry);
    if (rest.length === 0) this.#events.delete(name);
    else this.#events.set(name, rest);
  }
}

function checked(listener: unknown): unknown {
  if (typeof listener !== "function") throw invalidOption("listener", "a function", listener);
  return listener;
}
