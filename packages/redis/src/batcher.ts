import type { Reply } from "./replies.js";

/** The operations whose calls are gathered into one script call. */
export type BatchKind = "enqueue" | "release" | "remove";

interface Waiter {
  readonly index: number;
  readonly resolve: (status: number) => void;
  readonly reject: (error: unknown) => void;
}

interface Batch {
  readonly kind: BatchKind;
  readonly args: Array<string | number>;
  readonly waiters: Waiter[];
}

/**
 * Gathers the calls of one kind made in the same turn of the event loop into one script call, so that
 * a busy instance pays a script's fixed cost once for many decisions. A lone call still goes out at once
 * (at the end of the current turn) and costs one round trip. Batches go out in the order they were
 * opened, so a ticket's removal never overtakes its admission; the script applies the items in order,
 * each as if it came alone.
 *
 * @example
 * const batcher = new Batcher((kind, args) => run(kind, args), (reply) => absorb(reply));
 * const status = await batcher.add("enqueue", [id, priority, tenant, cost, retry, at, age]);
 */
export class Batcher {
  readonly #send: (kind: BatchKind, args: ReadonlyArray<string | number>) => Promise<Reply>;
  readonly #absorb: (reply: Reply) => void;
  readonly #maxItems: number;
  #open: Batch[] = [];
  #scheduled = false;
  readonly #flush = (): void => {
    this.#scheduled = false;
    this.flush();
  };

  constructor(
    send: (kind: BatchKind, args: ReadonlyArray<string | number>) => Promise<Reply>,
    absorb: (reply: Reply) => void,
    maxItems = 100,
  ) {
    this.#send = send;
    this.#absorb = absorb;
    this.#maxItems = maxItems;
  }

  /** Adds one item (its script arguments); resolves with its status, after the reply was absorbed. */
  add(kind: BatchKind, item: ReadonlyArray<string | number>): Promise<number> {
    let batch = this.#open.find((open) => open.kind === kind);
    if (batch !== undefined && batch.waiters.length >= this.#maxItems) {
      this.flush();
      batch = undefined;
    }
    if (batch === undefined) {
      batch = { kind, args: [], waiters: [] };
      this.#open.push(batch);
    }
    if (!this.#scheduled) {
      this.#scheduled = true;
      queueMicrotask(this.#flush);
    }
    const open = batch;
    return new Promise<number>((resolve, reject) => {
      open.waiters.push({ index: open.waiters.length, resolve, reject });
      for (const arg of item) open.args.push(arg);
    });
  }

  /** Sends every open batch now, in the order they were opened. */
  flush(): void {
    const batches = this.#open;
    this.#open = [];
    for (const batch of batches) {
      this.#send(batch.kind, batch.args).then(
        (reply) => this.#settle(batch, reply),
        (error: unknown) => {
          for (const waiter of batch.waiters) waiter.reject(error);
        },
      );
    }
  }

  #settle(batch: Batch, reply: Reply): void {
    if (reply.counts === undefined) {
      for (const waiter of batch.waiters) waiter.resolve(reply.status); // stopped early: -8, -9
      return;
    }
    try {
      this.#absorb(reply);
    } finally {
      for (const waiter of batch.waiters) {
        waiter.resolve(batch.kind === "enqueue" ? Number(reply.extra[waiter.index]) : reply.status);
      }
    }
  }
}
