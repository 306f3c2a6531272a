import type { Endings } from "./endings.js";
import { ErrorCode, SchedulerError } from "./errors.js";
import type { ResolvedOptions } from "./options.js";
import type { PermitControl } from "./permit.js";
import type { Preemption } from "./preemption.js";
import type { Reporter } from "./reporter.js";
import type { MaybePromise, Store } from "./store.js";
import { RUNNING } from "./task.js";

/** What a run's context (a {@link Permit}, a task's `reportUsage`) reaches in the engine that owns it. */
export interface PermitControlHost {
  readonly options: ResolvedOptions;
  readonly store: Store;
  readonly reporter: Reporter;
  readonly endings: Endings;
  readonly preemption: Preemption;
  /** The function settled or the permit was released: answer the caller, free the slot. */
  finish(task: Parameters<PermitControl["release"]>[0], ok: boolean, value: unknown): void;
  /** Waits for a store answer in the background, reporting a failure. */
  settleStore(result: MaybePromise<unknown>): void;
}

/** The permit and run-context side of the engine: first byte, release, abort, usage. */
export function permitControl(host: PermitControlHost): PermitControl {
  const { reporter, preemption } = host;
  return {
    firstByte: (task, waitMs) => {
      preemption.firstByte(task);
      if (task.phase === RUNNING) reporter.firstByte(task, waitMs);
    },
    // Asked by every permit's holder (the adapters, on every request): a scheduler without preemption
    // answers without going through the preemption books.
    wantsFirstByte: (task) =>
      reporter.wantsFirstByte || (host.options.preemption !== null && preemption.preemptible(task.priority)),
    preemptible: (task) => host.options.preemption !== null && preemption.preemptible(task.priority),
    release: (task, failure) => host.finish(task, failure === undefined, failure),
    abort: (task, reason) => {
      if (task.phase !== RUNNING) return;
      const about = { id: task.id, priority: task.priority, cause: reason };
      host.endings.abortRunning(task, new SchedulerError(ErrorCode.ABORTED, "The permit was aborted", about));
    },
    usage: (task, usage) => {
      reporter.observer?.usage(task, usage);
      try {
        host.settleStore(host.store.reportUsage?.(task, usage));
      } catch (error) {
        reporter.error(error);
      }
    },
  };
}
