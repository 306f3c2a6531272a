import type { Clock } from "@llm-scheduler/core";
import type { Replica } from "./replica.js";
import type { ResolvedShared } from "./shared-options.js";
import { KeyedTimers } from "./timers.js";

/**
 * Carries ejections between instances: an ejection here is written to the ledger, and every `syncMs`
 * the replicas another instance ejected are ejected here for the time that ejection has left.
 */
export class SharedHealth {
  readonly #shared: ResolvedShared;
  readonly #replicas: readonly Replica[];
  readonly #timers: KeyedTimers<"sync">;

  constructor(shared: ResolvedShared, replicas: readonly Replica[], clock: Clock) {
    this.#shared = shared;
    this.#replicas = replicas;
    this.#timers = new KeyedTimers(clock);
  }

  start(): void {
    this.#timers.arm("sync", this.#shared.syncMs, () => {
      void this.sync().finally(() => this.start());
    });
  }

  /** A replica was ejected here: tell the others for as long as it stays ejected. */
  ejected(replica: Replica): void {
    const ms = replica.health?.probeInMs();
    if (ms === undefined || ms <= 0) return;
    this.#shared.ledger.eject(replica.id, ms).catch(() => undefined);
  }

  /** Ejects here the replicas ejected elsewhere. */
  async sync(): Promise<void> {
    let ejections: Record<string, number>;
    try {
      ejections = await this.#shared.ledger.ejections();
    } catch {
      return; // unreachable: each instance goes on with its own view
    }
    for (const replica of this.#replicas) {
      const ms = ejections[replica.id];
      if (ms !== undefined && ms > 0 && replica.healthy) replica.health?.ejectFor(ms);
    }
  }

  close(): void {
    this.#timers.clear();
  }
}
