import { integerIn, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import type { AgingClock } from "./wire.js";

/** What the store uses of a Durable Object stub: its `fetch`. */
export interface ObjectStub {
  fetch(input: string, init: RequestInit): Promise<Response>;
}

/**
 * What the store uses of a Durable Object namespace binding (`env.LLM_SCHEDULER`): a Workers
 * `DurableObjectNamespace` fits, and so does anything else that reaches the object.
 */
export interface ObjectNamespace<Id = unknown> {
  idFromName(name: string): Id;
  get(id: Id): ObjectStub;
}

export interface DurableObjectStoreOptions {
  /** The binding of the {@link SchedulerObject} class (`env.LLM_SCHEDULER`). Required. */
  readonly namespace: ObjectNamespace;
  /**
   * Which object: schedulers with the same name share one queue and one limit (one name per model or
   * pool). 1 to 256 characters.
   * @default "default"
   */
  readonly name?: string;
  /**
   * A granted slot is held for this long unless renewed; the store renews its running slots every
   * third of it, so a slot of an isolate that died comes back within this long. 500 ms to 1 hour.
   * @default 30_000
   */
  readonly leaseMs?: number;
  /**
   * A waiting request asks the object about its turn once per this long (the object answers at once
   * when it is granted): one request to the object per this long of waiting. 100 ms to 60 s.
   * @default 10_000
   */
  readonly waitMs?: number;
  /**
   * Whose clock ages waiting tickets: the object's own (`"object"`; a ticket's wait so far is carried
   * over), or the clock the schedulers send (`"scheduler"`: a virtual clock in tests drives it).
   * @default "object"
   */
  readonly agingClock?: AgingClock;
  /** Called with failures the store handles by itself (a release or a renewal that did not reach the object). */
  readonly onError?: (error: unknown) => void;
}

export interface ResolvedDurableObjectStoreOptions {
  readonly namespace: ObjectNamespace<unknown>;
  readonly name: string;
  readonly leaseMs: number;
  readonly waitMs: number;
  readonly agingClock: AgingClock;
  readonly onError: (error: unknown) => void;
}

const KNOWN = ["namespace", "name", "leaseMs", "waitMs", "agingClock", "onError"];

/**
 * Drops `undefined` fields, merges defaults and validates every field up front (`INVALID_OPTION`).
 *
 * @example
 * resolveDurableObjectOptions({ namespace: env.LLM_SCHEDULER, leaseMs: 10 }); // throws: leaseMs from 500 to 3600000
 */
export function resolveDurableObjectOptions(
  options: DurableObjectStoreOptions,
): ResolvedDurableObjectStoreOptions {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw invalidOption("options", "an object", options);
  }
  rejectUnknownKeys("", options, KNOWN);
  const given = Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as Partial<DurableObjectStoreOptions>;
  const namespace = given.namespace as Partial<ObjectNamespace> | undefined;
  if (typeof namespace?.idFromName !== "function" || typeof namespace.get !== "function") {
    throw invalidOption("namespace", "a Durable Object namespace binding (idFromName, get)", namespace);
  }
  const name = given.name ?? "default";
  if (typeof name !== "string" || name.length === 0 || name.length > 256) {
    throw invalidOption("name", "a string of 1 to 256 characters", name);
  }
  const agingClock = given.agingClock ?? "object";
  if (agingClock !== "object" && agingClock !== "scheduler") {
    throw invalidOption("agingClock", '"object" or "scheduler"', agingClock);
  }
  const onError = given.onError;
  if (onError !== undefined && typeof onError !== "function")
    throw invalidOption("onError", "a function", onError);
  return {
    namespace: namespace as ObjectNamespace<unknown>,
    name,
    leaseMs: integerIn("leaseMs", given.leaseMs ?? 30_000, 500, 3_600_000),
    waitMs: integerIn("waitMs", given.waitMs ?? 10_000, 100, 60_000),
    agingClock,
    onError: (error) => {
      try {
        onError?.(error);
      } catch {
        // a callback that throws never breaks the store
      }
    },
  };
}
