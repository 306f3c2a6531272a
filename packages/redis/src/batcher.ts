import type { Reply } from "./replies.js";

/** The operations whose calls are gathered into one script call. */
export type BatchKind = "enqueue" | "release" | "remove" | "usage";

/**
 * What one call carries: the ids to release and to remove, the usage reports' and the enqueued
 * tickets' arguments.
 */
export interface BatchArgs {
  readonly release: Array<string | number>;
  readonly remove: Array<string | number>;
  readonly usage: Array<string | number>;
  readonly enqueue: Array<string | number>;
}

interface Waiter {
  readonly kind: BatchKind;
  /** Among the batch's enqueues: the position of this one's status in the reply. */
  readonly index: number;
  /** What the caller makes of its status, and of the call's failure, given its context. */
  readonly done: (status: string, context: unknown) => unknown;
  readonly failed: (error: unknown, context: unknown) => unknown;
  readonly context: unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

interface Batch {
  readonly args: BatchArgs;
  readonly waiters: Waiter[];
  enqueues: number;
}

/**
 * Gathers the enqueues, releases and removals made in the same turn of the event loop into one script
 * call (`step`), so that a busy instance pays a script's fixed cost once for many decisions, and an
 * instance that releases a slot and asks for the next one in the same turn pays it once for both. A
 * lone call still goes out at once (at the end of the current turn) and costs one round trip. While a
 * call is out, what comes meanwhile waits for its reply and then goes as one call (a full batch goes at
 * once): under load the calls grow instead of multiplying, with no timer anywhere. The
 * script applies the usage reports, the releases, then the enqueues, then the removals, each as if it came alone: a
 * release always concerns a ticket granted by an earlier call, a removal may concern one admitted in
 * the same call. Calls go out in the order they were opened, and {@link flush} sends at once.
 *
 * @example
 * const batcher = new Batcher((args) => run(args), (reply) => absorb(reply));
 * const granted = await batcher.add("enqueue", [id, priority, tenant, cost, retry, at, age],
 *   (status) => status === "1", () => false);
 */
export class Batcher {
  readonly #send: (args: BatchArgs) => Promise<Reply>;
  readonly #absorb: (reply: Reply) => void;
  readonly #maxItems: number;
  #open: Batch | null = null;
  #scheduled = false;
  /** Calls sent and not yet answered. */
  #inFlight = 0;
  readonly #flush = (): void => {
    this.#scheduled = false;
    if (this.#inFlight === 0) this.flush();
  };

  constructor(send: (args: BatchArgs) => Promise<Reply>, absorb: (reply: Reply) => void, maxItems = 100) {
    this.#send = send;
    this.#absorb = absorb;
    this.#maxItems = maxItems;
  }

  /**
   * Adds one item (its script arguments). Once the reply was absorbed, resolves with what `done` makes
   * of its status (an enqueue's own, as the script wrote it; the call's for the others), or when the
   * call failed with what `failed` makes of the error; either rejects the promise by throwing. The
   * caller's handlers run as the reply is read, so that each item costs one promise; they get
   * `context` too, so that they need not be new closures for every item.
   */
  add<T, C = undefined>(
    kind: BatchKind,
    item: ReadonlyArray<string | number>,
    done: (status: string, context: C) => T,
    failed: (error: unknown, context: C) => T,
    context?: C,
  ): Promise<T> {
    if (this.#open !== null && this.#open.waiters.length >= this.#maxItems) this.flush();
    this.#open ??= { args: { release: [], remove: [], usage: [], enqueue: [] }, waiters: [], enqueues: 0 };
    if (this.#inFlight === 0) this.#schedule();
    const open = this.#open;
    return new Promise<T>((resolve, reject) => {
      const index = kind === "enqueue" ? open.enqueues++ : -1;
      open.waiters.push({
        kind,
        index,
        done: done as Waiter["done"],
        failed: failed as Waiter["failed"],
        context,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      const list = open.args[kind];
      for (const arg of item) list.push(arg);
    });
  }

  /** Sends the open batch now. */
  flush(): void {
    const batch = this.#open;
    this.#open = null;
    if (batch === null) return;
    this.#inFlight++;
    this.#sent(batch).then(
      (reply) => {
        this.#answered();
        this.#settle(batch, reply);
      },
      (error: unknown) => {
        this.#answered();
        for (const waiter of batch.waiters) answer(waiter, waiter.failed, error);
      },
    );
  }

  /** A call was answered (or failed): what gathered while it was out goes next, on its own merits. */
  #answered(): void {
    this.#inFlight--;
    if (this.#inFlight === 0 && this.#open !== null) this.#schedule();
  }

  /** Sends the open batch at the end of the current turn. */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(this.#flush);
  }

  #sent(batch: Batch): Promise<Reply> {
    try {
      return this.#send(batch.args);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #settle(batch: Batch, reply: Reply): void {
    const status = String(reply.status);
    if (reply.counts === undefined) {
      for (const waiter of batch.waiters) answer(waiter, waiter.done, status); // stopped early: -9
      return;
    }
    try {
      this.#absorb(reply);
    } finally {
      for (const waiter of batch.waiters) {
        answer(waiter, waiter.done, waiter.kind === "enqueue" ? reply.extra[waiter.index]! : status);
      }
    }
  }
}

/** Settles a caller's promise with what its handler makes of `input`, or with what the handler threw. */
function answer<I>(waiter: Waiter, handler: (input: I, context: unknown) => unknown, input: I): void {
  try {
    waiter.resolve(handler(input, waiter.context));
  } catch (error) {
    waiter.reject(error);
  }
}
