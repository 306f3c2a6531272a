/**
 * What the object uses of a Durable Object's `ctx.storage` (the key-value API every Durable Object has,
 * whatever its storage backend): declared here so that the package needs no Workers type package.
 */
export interface ObjectStorage {
  get<T = unknown>(key: string): Promise<T | undefined>;
  list<T = unknown>(options: { prefix: string }): Promise<Map<string, T>>;
  put(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<boolean>;
  getAlarm(): Promise<number | null>;
  setAlarm(scheduledTime: number): Promise<void>;
}

/** What the object uses of the `ctx` its constructor receives. */
export interface ObjectContext {
  readonly storage: ObjectStorage;
  blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T>;
}

/** The storage keys: the configuration, the object's life count, and one key per lease. */
export const CONFIG_KEY = "config";
export const EPOCH_KEY = "epoch";
export const LEASE_PREFIX = "lease:";
