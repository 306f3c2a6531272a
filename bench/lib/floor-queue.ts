// The throughput floor: the least code that does the job the throughput part asks of llm-scheduler
// (two weighted priorities with a reserved slot, tenants in turn, a queue timeout per task, a promise
// per `run()`). No validation, no events, no metrics, no cancellation, no stores: a measuring stick
// for what those features cost in this runtime, not a scheduler anyone should use.

/** A plain first-in first-out list: an array and the index of its head, compacted as it drains. */
class Fifo<T> {
  #items: T[] = [];
  #head = 0;

  get size(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  peek(): T | undefined {
    return this.#items[this.#head];
  }

  shift(): T | undefined {
    const item = this.#items[this.#head];
    if (item === undefined) return undefined;
    this.#items[this.#head++] = undefined as T;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}

interface FloorTask {
  readonly fn: () => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: unknown) => void;
  /** When its queue timeout fires, on the `performance.now()` scale. */
  readonly deadline: number;
  /** False once it has started or timed out: the queues that still hold it skip it. */
  waiting: boolean;
}

/** One priority: its tenants' FIFOs taken in turn, and its queue deadlines in arrival order. */
class Lane {
  readonly tenants = new Map<string, Fifo<FloorTask>>();
  /** Tenants with something waiting, in turn order. */
  readonly turn = new Fifo<Fifo<FloorTask>>();
  /** Every task of a lane has the same queue timeout, so its deadlines arrive in order. */
  readonly deadlines = new Fifo<FloorTask>();
  waiting = 0;
  running = 0;
  timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly weight: number,
    readonly reserved: number,
    readonly queueTimeoutMs: number,
  ) {}

  add(tenant: string, task: FloorTask): void {
    let fifo = this.tenants.get(tenant);
    if (fifo === undefined) {
      fifo = new Fifo();
      this.tenants.set(tenant, fifo);
    }
    if (fifo.size === 0) this.turn.push(fifo);
    fifo.push(task);
    this.deadlines.push(task);
    this.waiting++;
  }

  /** The next waiting task of the tenant whose turn it is. */
  take(): FloorTask | undefined {
    for (let fifo = this.turn.shift(); fifo !== undefined; fifo = this.turn.shift()) {
      let task = fifo.shift();
      while (task !== undefined && !task.waiting) task = fifo.shift();
      if (fifo.size > 0) this.turn.push(fifo);
      if (task !== undefined) {
        task.waiting = false;
        this.waiting--;
        // Started tasks leave the deadline FIFO from its head; the rest go when they expire.
        while (this.deadlines.peek()?.waiting === false) this.deadlines.shift();
        return task;
      }
    }
    return undefined;
  }
}

export interface FloorOptions {
  readonly concurrency: number;
  /** Per priority, highest first: its weight, its reserved slots and its queue timeout. */
  readonly priorities: ReadonlyArray<{ weight: number; reserved: number; queueTimeoutMs: number }>;
}

/** The floor's whole API: `run(fn, priority, tenant)` and `close()`. */
export class FloorQueue {
  readonly #concurrency: number;
  readonly #lanes: Lane[];
  #running = 0;
  /** Weighted turns: a lane's credit is spent one start at a time, refilled when every lane is spent. */
  readonly #credits: number[];

  constructor({ concurrency, priorities }: FloorOptions) {
    this.#concurrency = concurrency;
    this.#lanes = priorities.map((p) => new Lane(p.weight, p.reserved, p.queueTimeoutMs));
    this.#credits = priorities.map((p) => p.weight);
  }

  run<T>(fn: () => Promise<T>, priority: number, tenant: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const lane = this.#lanes[priority]!;
      const deadline = performance.now() + lane.queueTimeoutMs;
      lane.add(tenant, { fn, resolve: resolve as (value: unknown) => void, reject, deadline, waiting: true });
      if (lane.timer === undefined) this.#arm(lane);
      this.#pump();
    });
  }

  close(): void {
    for (const lane of this.#lanes) clearTimeout(lane.timer);
  }

  #pump(): void {
    while (this.#running < this.#concurrency) {
      const lane = this.#pick();
      if (lane === undefined) return;
      const task = lane.take()!;
      this.#running++;
      lane.running++;
      let result: Promise<unknown>;
      try {
        result = task.fn();
      } catch (error) {
        result = Promise.reject(error);
      }
      // Anonymous callbacks: tsx names every named closure it creates, at a price per call.
      result.then(
        (value) => {
          this.#finish(lane);
          task.resolve(value);
        },
        (error: unknown) => {
          this.#finish(lane);
          task.reject(error);
        },
      );
    }
  }

  #finish(lane: Lane): void {
    this.#running--;
    lane.running--;
    this.#pump();
  }

  /** The lane to start from: the first with credit left that has work and may use a free slot. */
  #pick(): Lane | undefined {
    for (let pass = 0; pass < 2; pass++) {
      for (let index = 0; index < this.#lanes.length; index++) {
        const lane = this.#lanes[index]!;
        if (lane.waiting === 0 || this.#credits[index]! <= 0 || !this.#mayStart(lane)) continue;
        this.#credits[index]!--;
        return lane;
      }
      // Every lane with work is out of credit: a new round of turns.
      for (let index = 0; index < this.#lanes.length; index++)
        this.#credits[index] = this.#lanes[index]!.weight;
    }
    return undefined;
  }

  /** A lane may start unless the free slots are all held back for other lanes' reserved ones. */
  #mayStart(lane: Lane): boolean {
    let heldBack = 0;
    for (const other of this.#lanes) {
      if (other !== lane) heldBack += Math.max(0, other.reserved - other.running);
    }
    return this.#running + heldBack < this.#concurrency;
  }

  /** One timer per lane, for its oldest deadline; expired tasks are rejected and skipped later. */
  #arm(lane: Lane): void {
    const head = lane.deadlines.peek();
    if (head === undefined) {
      lane.timer = undefined;
      return;
    }
    lane.timer = setTimeout(() => this.#expire(lane), Math.max(0, head.deadline - performance.now()));
    (lane.timer as { unref?: () => void }).unref?.();
  }

  #expire(lane: Lane): void {
    const now = performance.now();
    for (let task = lane.deadlines.peek(); task !== undefined; task = lane.deadlines.peek()) {
      if (task.waiting && task.deadline > now) break;
      lane.deadlines.shift();
      if (!task.waiting) continue;
      task.waiting = false;
      lane.waiting--;
      task.reject(new Error("queue timeout"));
    }
    this.#arm(lane);
  }
}
