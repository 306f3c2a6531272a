/** CPU used while one key was being served: microseconds (user + system) and requests answered. */
export interface CpuUse {
  micros: number;
  requests: number;
}

/**
 * Splits this process's CPU time between servers loaded one after another: a window opens when a
 * server answers its first request and closes when another server takes over (or at `close()`). Only
 * meaningful when one server at a time is under load.
 *
 * @example
 * server.onRequest(() => windows.serving(config));
 * windows.reset(); await load(); const perServer = windows.close();
 */
export class CpuWindows<K> {
  #current: K | undefined;
  #since: NodeJS.CpuUsage | undefined;
  #requests = 0;
  #use = new Map<K, CpuUse>();

  /** Call on every request of `key`'s server. */
  serving(key: K): void {
    if (this.#current !== key) {
      this.#flush();
      this.#current = key;
      this.#since = process.cpuUsage();
    }
    this.#requests++;
  }

  /** Forgets everything measured so far. */
  reset(): void {
    this.#current = undefined;
    this.#since = undefined;
    this.#requests = 0;
    this.#use = new Map();
  }

  /** Closes the open window and returns what each key used since the last `reset()`. */
  close(): ReadonlyMap<K, CpuUse> {
    this.#flush();
    this.#current = undefined;
    return this.#use;
  }

  #flush(): void {
    if (this.#current === undefined || this.#since === undefined) return;
    const used = process.cpuUsage(this.#since);
    const entry = this.#use.get(this.#current) ?? { micros: 0, requests: 0 };
    entry.micros += used.user + used.system;
    entry.requests += this.#requests;
    this.#use.set(this.#current, entry);
    this.#requests = 0;
    this.#since = undefined;
  }
}
