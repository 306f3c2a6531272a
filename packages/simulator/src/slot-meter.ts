/** What a {@link SlotMeter} needs to know about the gateway it watches. */
export interface SlotMeterOptions {
  /**
   * Slots available from the start: the gateway's limit (an adaptive limit moves it: see
   * {@link SlotMeter.setCapacity}). @default Infinity (no idle time is counted as reserved)
   */
  readonly capacity?: number;
  /** Slots each priority keeps for itself (`reserved`); none for a FIFO gateway. @default {} */
  readonly reserved?: Readonly<Record<string, number>>;
}

/** The sums a {@link SlotMeter} keeps, all from the start of the run; `slot-ms` is slots times ms. */
export interface SlotTotals {
  /** Slot-ms spent running upstream, by priority. */
  readonly busyMs: Readonly<Record<string, number>>;
  /** Time during which at least one attempt waited at the gateway, ms. */
  readonly waitingMs: number;
  /** Slot-ms spent running while at least one attempt waited. */
  readonly busyWhileWaitingMs: number;
  /** Slot-ms the limit in force allowed over the whole run (the limit at each moment times its span). */
  readonly availableMs: number;
  /** Slot-ms the limit in force allowed while at least one attempt waited. */
  readonly availableWhileWaitingMs: number;
  /**
   * Idle slot-ms, while something waited, that were some priority's `reserved` slots kept free for it
   * while nothing of that priority waited (at most the idle slots of the moment).
   */
  readonly idleReservedMs: number;
}

/**
 * Integrates a gateway's slot use exactly, event by event: how many attempts of each priority wait and
 * run, and the limit in force, are step functions of time, and each change adds the step's area to the
 * sums. No sampling, so a gap of a millisecond between two requests counts as exactly that.
 *
 * @example
 * const meter = new SlotMeter({ capacity: 8, reserved: { interactive: 2 } });
 * meter.queued("batch", 0); meter.dequeued("batch", 0, true); meter.released("batch", 500);
 * meter.totals(500).busyMs.batch; // 500
 */
export class SlotMeter {
  #capacity: number;
  readonly #reserved: ReadonlyArray<readonly [string, number]>;
  readonly #waiting = new Map<string, number>();
  readonly #running = new Map<string, number>();
  readonly #busy: Record<string, number> = {};
  #waitingTotal = 0;
  #runningTotal = 0;
  #last = 0;
  #waitingMs = 0;
  #busyWhileWaiting = 0;
  #idleReserved = 0;
  #available = 0;
  #availableWhileWaiting = 0;

  constructor(options: SlotMeterOptions = {}) {
    this.#capacity = options.capacity ?? Number.POSITIVE_INFINITY;
    this.#reserved = Object.entries(options.reserved ?? {}).filter(([, slots]) => slots > 0);
  }

  /** The gateway's limit changed (an adaptive limit moved) at `now`. */
  setCapacity(capacity: number, now: number): void {
    this.#advance(now);
    this.#capacity = capacity;
  }

  /** Slot-ms the limit in force allowed from the start to `now`. */
  availableUntil(now: number): number {
    this.#advance(now);
    return this.#available;
  }

  /** An attempt reached the gateway and waits for a slot. */
  queued(priority: string, now: number): void {
    this.#advance(now);
    this.#waitingTotal++;
    bump(this.#waiting, priority, 1);
  }

  /** A waiting attempt left the queue: sent upstream (`started`) or gone unserved. */
  dequeued(priority: string, now: number, started: boolean): void {
    this.#advance(now);
    this.#waitingTotal--;
    bump(this.#waiting, priority, -1);
    if (!started) return;
    this.#runningTotal++;
    bump(this.#running, priority, 1);
  }

  /** An attempt that had a slot let go of it. */
  released(priority: string, now: number): void {
    this.#advance(now);
    this.#runningTotal--;
    bump(this.#running, priority, -1);
  }

  /** The sums up to `now`. */
  totals(now: number): SlotTotals {
    this.#advance(now);
    return {
      busyMs: { ...this.#busy },
      waitingMs: this.#waitingMs,
      busyWhileWaitingMs: this.#busyWhileWaiting,
      availableMs: this.#available,
      availableWhileWaitingMs: this.#availableWhileWaiting,
      idleReservedMs: this.#idleReserved,
    };
  }

  /** Slot-ms busy so far, by priority (a copy). */
  busyUntil(now: number): Record<string, number> {
    this.#advance(now);
    return { ...this.#busy };
  }

  #advance(now: number): void {
    const span = now - this.#last;
    if (span <= 0) return;
    this.#last = now;
    for (const [priority, running] of this.#running) {
      if (running > 0) this.#busy[priority] = (this.#busy[priority] ?? 0) + running * span;
    }
    this.#available += this.#capacity * span;
    if (this.#waitingTotal <= 0) return;
    this.#waitingMs += span;
    this.#availableWhileWaiting += this.#capacity * span;
    this.#busyWhileWaiting += this.#runningTotal * span;
    this.#idleReserved += this.#heldInReserve() * span;
  }

  /** Reserved slots of priorities with nothing waiting and fewer running than they reserve. */
  #heldInReserve(): number {
    let held = 0;
    for (const [priority, slots] of this.#reserved) {
      if ((this.#waiting.get(priority) ?? 0) > 0) continue;
      held += Math.max(0, slots - (this.#running.get(priority) ?? 0));
    }
    return Math.min(held, Math.max(0, this.#capacity - this.#runningTotal));
  }
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  counts.set(key, (counts.get(key) ?? 0) + by);
}
