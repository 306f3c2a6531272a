import type { Permit } from "@llm-scheduler/core";

/**
 * The writing half of Node's `http.ServerResponse`: every body byte leaves through one of these.
 *
 * @example
 * const writable: NodeWritable = res; // an http.ServerResponse
 */
export interface NodeWritable {
  write(...args: never[]): unknown;
  end(...args: never[]): unknown;
}

type Method = (this: never, ...args: unknown[]) => unknown;

/** What a watched response keeps: the permit to report to (until the first byte) and its own methods. */
interface Hook {
  permit: Permit | null;
  readonly write: Method;
  readonly end: Method;
}

const HOOK: unique symbol = Symbol("llm-scheduler first byte");

type Hooked = { write: Method; end: Method; [HOOK]?: Hook };

function reached(hook: Hook): void {
  const { permit } = hook;
  if (permit === null) return;
  hook.permit = null;
  permit.firstByte();
}

// Shared by every watched response (no closure per request); `this` is the response. They stay in place
// after the first byte, so a wrapper installed later (compression) keeps working.
function firstWrite(this: Hooked, ...args: unknown[]): unknown {
  const hook = this[HOOK]!;
  reached(hook);
  return (hook.write as (...a: unknown[]) => unknown).apply(this, args);
}

function firstEnd(this: Hooked, ...args: unknown[]): unknown {
  const hook = this[HOOK]!;
  reached(hook);
  return (hook.end as (...a: unknown[]) => unknown).apply(this, args);
}

/**
 * Calls `permit.firstByte()` when the response's first `write()` or `end()` is made (headers and the
 * first body bytes leave then), so the scheduler can report the time to first byte. Costs nothing when
 * nobody listens for `firstByte` (check `permit.wantsFirstByte` first; {@link ResponseWatch} does).
 *
 * @example
 * if (permit.wantsFirstByte) reportFirstByte(res, permit);
 */
export function reportFirstByte(response: NodeWritable, permit: Permit): void {
  const target = response as unknown as Hooked;
  if (typeof target.write !== "function" || typeof target.end !== "function") return;
  target[HOOK] = { permit, write: target.write, end: target.end };
  target.write = firstWrite;
  target.end = firstEnd;
}
