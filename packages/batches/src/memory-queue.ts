import type { MutableBatch } from "./transitions.js";
import type { Attempt, BatchItem, ItemResult } from "./types.js";

export const QUEUED = 0;
export const RUNNING = 1;
export const FINAL = 2;

/** One item in the in-memory store. */
export interface ItemState {
  readonly item: BatchItem;
  phase: typeof QUEUED | typeof RUNNING | typeof FINAL;
  token: number;
  deadline: number;
  dueAt: number;
  attempts: Attempt[];
  roundStart: number;
  result: ItemResult | null;
}

/** One batch in the in-memory store, with its queue of items. */
export interface BatchState {
  batch: MutableBatch;
  readonly items: ItemState[];
  /** Indexes of queued items that are due, in order (FIFO). */
  ready: number[];
  readyHead: number;
  /** Items waiting for a retry's due time (few: only retries wait). */
  delayed: ItemState[];
}

/**
 * A new item, queued.
 *
 * @example
 * state.items.push(itemState(item));
 */
export function itemState(item: BatchItem): ItemState {
  return { item, phase: QUEUED, token: 0, deadline: 0, dueAt: 0, attempts: [], roundStart: 0, result: null };
}

/**
 * The index of the next due queued item of a batch (taken off its queue), or undefined; retries whose
 * time has come join the queue first.
 *
 * @example
 * const index = nextDue(state, clock.now());
 */
export function nextDue(state: BatchState, now: number): number | undefined {
  if (state.delayed.length > 0) promote(state, now);
  if (state.readyHead >= state.ready.length) return undefined;
  const index = state.ready[state.readyHead++]!;
  if (state.readyHead > 1024 && state.readyHead * 2 > state.ready.length) {
    state.ready = state.ready.slice(state.readyHead);
    state.readyHead = 0;
  }
  return index;
}

/** Moves the delayed items that are due to the ready queue. */
function promote(state: BatchState, now: number): void {
  const waiting: ItemState[] = [];
  for (const entry of state.delayed) {
    if (entry.dueAt <= now) state.ready.push(entry.item.index);
    else waiting.push(entry);
  }
  state.delayed = waiting;
}
