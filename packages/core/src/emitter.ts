/** A listener for the event `K` of the event map `M`. */
export type Listener<M, K extends keyof M> = (event: M[K]) => void;

/**
 * A small typed event emitter built on nothing but arrays (runs on every runtime). A listener that throws
 * is reported through `onListenerError` (with the event's name) and never breaks the scheduler's
 * bookkeeping; `onListenerError` itself must not throw.
 */
export class Emitter<M extends object> {
  readonly #listeners = new Map<keyof M, Array<Listener<M, keyof M>>>();
  readonly #onListenerError: (error: unknown, name: keyof M) => void;

  constructor(onListenerError: (error: unknown, name: keyof M) => void) {
    this.#onListenerError = onListenerError;
  }

  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof M>(name: K, listener: Listener<M, K>): () => void {
    const list = this.#listeners.get(name);
    const added = listener as Listener<M, keyof M>;
    if (list === undefined) this.#listeners.set(name, [added]);
    else list.push(added);
    return () => this.off(name, listener);
  }

  /** Removes a listener added with {@link Emitter.on}. */
  off<K extends keyof M>(name: K, listener: Listener<M, K>): void {
    const list = this.#listeners.get(name);
    if (list === undefined) return;
    const index = list.indexOf(listener as Listener<M, keyof M>);
    if (index >= 0) list.splice(index, 1);
    if (list.length === 0) this.#listeners.delete(name);
  }

  /**
   * True when at least one listener waits for `name`: callers skip building a payload otherwise. With no
   * listener at all (a scheduler nobody watches) it is one size check, no lookup by name.
   */
  has(name: keyof M): boolean {
    const listeners = this.#listeners;
    return listeners.size !== 0 && listeners.has(name);
  }

  emit<K extends keyof M>(name: K, event: M[K]): void {
    const list = this.#listeners.get(name);
    if (list === undefined) return;
    for (const listener of list.length === 1 ? list : [...list]) {
      try {
        listener(event);
      } catch (error) {
        this.#onListenerError(error, name);
      }
    }
  }
}
