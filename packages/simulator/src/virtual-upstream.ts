import type { Clock, TimerHandle } from "@llm-scheduler/core";
import { IndexedHeap } from "@llm-scheduler/core/kit";
import type { LatencyModel } from "@llm-scheduler/upstream-sim";
import { type Capacity, UpstreamOverloaded } from "./capacity.js";
import type { PrefixCache } from "./prefix-cache.js";

/** One generation asked of the virtual server. */
export interface GenerationJob {
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Aborting it drops the request: it leaves the server's queue, or frees its sequence. */
  readonly signal: AbortSignal;
  /** Called when the first token is out. */
  readonly onFirstToken?: () => void;
  /**
   * The part of the prompt that other requests share (a system prompt): `tokens` of `promptTokens`,
   * named by `key`. A server with a prefix cache skips the prefill of the part it has cached.
   */
  readonly prefix?: { readonly key: string; readonly tokens: number } | undefined;
}

/** Anything that runs a generation: one server, or a pool of them behind a router. */
export interface GenerationTarget {
  /** Resolves when the last token is out; rejects with the signal's reason if it aborts first. */
  generate(job: GenerationJob): Promise<void>;
}

const WAITING = 0;
const PREFILL = 1;
const DECODE = 2;
const OVER = 3;

/** One request inside the server; it listens to its own signal (no closure per request). */
class Sequence {
  readonly job: GenerationJob;
  readonly order: number;
  readonly server: VirtualUpstream;
  resolve: () => void = noop;
  reject: (reason: unknown) => void = noop;
  phase = WAITING;
  /** Work (ms of a lone sequence) the server must have done when the next milestone is reached. */
  target = 0;
  doneTarget = 0;
  /** Position in the milestone heap (owned by the heap). */
  heapIndex = -1;

  constructor(job: GenerationJob, order: number, server: VirtualUpstream) {
    this.job = job;
    this.order = order;
    this.server = server;
  }

  handleEvent(): void {
    this.server.abort(this);
  }
}

function noop(): void {}

const before = (a: Sequence, b: Sequence): boolean =>
  a.target < b.target || (a.target === b.target && a.order < b.order);

/**
 * The upstream-sim server's timing model in virtual time: `parallel` sequences, a FIFO queue behind
 * them, a time to first token that grows with the prompt, and a step time that grows with the number of
 * busy sequences, all from the same {@link LatencyModel}.
 *
 * Since every busy sequence moves at the same speed (`1 / load(active)` ms of lone work per ms), the
 * server keeps one work counter and one timer for the next milestone (a first token or an end), instead
 * of one event per token: a day of traffic costs a few events per request. This is the fluid form of the
 * HTTP simulator, which reads the load once per token; the two differ by less than one token step.
 *
 * @example
 * const upstream = new VirtualUpstream(createLatencyModel({ parallel: 8 }), clock);
 * await upstream.generate({ promptTokens: 100, completionTokens: 50, signal });
 */
export class VirtualUpstream implements GenerationTarget {
  readonly #model: LatencyModel;
  readonly #clock: Clock;
  readonly #queue: Sequence[] = [];
  #queueHead = 0;
  #waiting = 0;
  #active = 0;
  #work = 0;
  #workAt: number;
  #order = 0;
  readonly #milestones = new IndexedHeap<Sequence>(before);
  #timer: TimerHandle | null = null;
  readonly #capacity: Capacity | undefined;
  readonly #cache: PrefixCache | undefined;

  /**
   * With a `capacity`, the server also slows down past its knee, refuses (503) past its hard limit, and
   * changes capacity at the given times (counted from now); its `parallel` should then be at least the
   * hard limit, so that nothing waits inside it. With a `cache`, a request whose `prefix` is cached
   * prefills only the rest of its prompt.
   */
  constructor(model: LatencyModel, clock: Clock, capacity?: Capacity, cache?: PrefixCache) {
    this.#model = model;
    this.#clock = clock;
    this.#workAt = clock.now();
    this.#capacity = capacity;
    this.#cache = cache;
    for (const { atMs, scale } of capacity?.options.changes ?? []) {
      clock.setTimer(() => {
        this.#advance(); // the work so far at the old speed
        capacity!.scale = scale;
        this.#arm();
      }, atMs);
    }
  }

  /** The slowdown factor with `active` busy sequences. */
  #load(active: number): number {
    const base = this.#model.load(active);
    return this.#capacity === undefined ? base : base * this.#capacity.factor(active);
  }

  /** Sequences busy now. */
  get active(): number {
    return this.#active;
  }

  /** Requests waiting inside the server for a sequence. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Resolves when the last token is out; rejects with the signal's reason if it aborts first. */
  generate(job: GenerationJob): Promise<void> {
    if (job.signal.aborted) return Promise.reject(job.signal.reason);
    const capacity = this.#capacity;
    if (capacity !== undefined && this.#active + this.#waiting >= capacity.hardLimit) {
      return Promise.reject(new UpstreamOverloaded());
    }
    const sequence = new Sequence(job, this.#order++, this);
    const done = new Promise<void>((resolve, reject) => {
      sequence.resolve = resolve;
      sequence.reject = reject;
    });
    job.signal.addEventListener("abort", sequence, { once: true });
    this.#queue.push(sequence);
    this.#waiting++;
    this.#admit();
    return done;
  }

  /** Brings the work counter up to now at the current speed. */
  #advance(): void {
    const now = this.#clock.now();
    if (this.#active > 0) this.#work += (now - this.#workAt) / this.#load(this.#active);
    this.#workAt = now;
  }

  #admit(): void {
    this.#advance();
    const { parallel, ttftMs, prefillMsPerToken, tokenMs } = this.#model.options;
    while (this.#active < parallel && this.#queueHead < this.#queue.length) {
      const sequence = this.#queue[this.#queueHead++]!;
      if (sequence.phase !== WAITING) continue;
      this.#waiting--;
      this.#active++;
      const { promptTokens, completionTokens, prefix } = sequence.job;
      const cached =
        prefix === undefined || this.#cache === undefined
          ? 0
          : this.#cache.use(prefix.key, Math.min(prefix.tokens, promptTokens));
      const firstTarget = this.#work + ttftMs + prefillMsPerToken * Math.max(0, promptTokens - cached);
      sequence.doneTarget = firstTarget + Math.max(0, completionTokens - 1) * tokenMs;
      // Without a first-token listener, the first token is no event of its own.
      sequence.phase = sequence.job.onFirstToken === undefined ? DECODE : PREFILL;
      sequence.target = sequence.phase === PREFILL ? firstTarget : sequence.doneTarget;
      this.#milestones.push(sequence);
    }
    if (this.#queueHead > 1024 && this.#queueHead * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#queueHead);
      this.#queueHead = 0;
    }
    this.#arm();
  }

  #arm(): void {
    if (this.#timer !== null) this.#clock.clearTimer(this.#timer);
    this.#timer = null;
    let next = this.#milestones.peek();
    while (next !== undefined && next.phase === OVER) {
      this.#milestones.pop();
      next = this.#milestones.peek();
    }
    if (next === undefined) return;
    const delay = Math.max(0, (next.target - this.#work) * this.#load(this.#active));
    this.#timer = this.#clock.setTimer(() => this.#reach(), delay);
  }

  /** The timer fired: every milestone the work counter has reached happens now. */
  #reach(): void {
    this.#timer = null;
    this.#advance();
    const due = this.#work + 1e-9 * Math.max(1, Math.abs(this.#work));
    for (let next = this.#milestones.peek(); next !== undefined && next.target <= due; ) {
      this.#milestones.pop();
      if (next.phase === PREFILL) {
        next.phase = DECODE;
        next.target = next.doneTarget;
        this.#milestones.push(next);
        next.job.onFirstToken?.();
      } else if (next.phase === DECODE) {
        this.#end(next);
        next.resolve();
      }
      next = this.#milestones.peek();
    }
    this.#admit();
  }

  #end(sequence: Sequence): void {
    if (sequence.phase === PREFILL || sequence.phase === DECODE) this.#active--;
    if (sequence.phase === WAITING) this.#waiting--;
    sequence.phase = OVER;
    sequence.job.signal.removeEventListener("abort", sequence);
  }

  /** @internal The sequence's signal aborted: it leaves the queue or frees its sequence. */
  abort(sequence: Sequence): void {
    if (sequence.phase === OVER) return;
    this.#advance();
    this.#end(sequence);
    sequence.reject(sequence.job.signal.reason);
    this.#admit();
  }
}
