import { IncomingMessage } from "node:http";
import type { RequestSlot } from "@llm-scheduler/adapter-kit";

/** The part of an Express request the accessor reads: Express links each request to its response. */
interface Linked {
  readonly res?: { readonly locals?: { llmScheduler?: RequestSlot } };
}

/**
 * `req.llmScheduler` without a property added to each request. Express gives every request a hidden class
 * (V8 map) of its own, so a property added to one copies its map. Instead, Express's request prototype
 * (the one every app's `app.request` extends, so mounted apps and the parent app see it too) gets an
 * accessor once, which reads the slot from `req.res.locals.llmScheduler`, where the middleware puts it
 * anyway: a request costs no store of its own (a `WeakMap` entry cost more, and more work for the
 * garbage collector). Assigning `req.llmScheduler` writes there too. A request that is not an Express
 * one (no such prototype) gets an own property, as before.
 */
function getSlot(this: Linked): RequestSlot | undefined {
  return this.res?.locals?.llmScheduler;
}

function setSlot(this: Linked, slot: RequestSlot | undefined): void {
  const locals = this.res?.locals;
  if (locals !== undefined) locals.llmScheduler = slot;
  else
    Object.defineProperty(this, "llmScheduler", {
      value: slot,
      writable: true,
      enumerable: true,
      configurable: true,
    });
}

/** The request prototype last seen to serve the accessor (one per app; nearly always the same one). */
let served: object | undefined;

/**
 * Makes `req.llmScheduler` and `res.locals.llmScheduler` read `slot`.
 *
 * @example
 * setRequestSlot(req, res, slot); // req.llmScheduler === res.locals.llmScheduler === slot
 */
export function setRequestSlot(
  req: { llmScheduler?: RequestSlot },
  res: { readonly locals: { llmScheduler?: RequestSlot } },
  slot: RequestSlot,
): void {
  res.locals.llmScheduler = slot;
  const prototype = Object.getPrototypeOf(req) as object | null;
  if (prototype !== served && !serve(prototype)) req.llmScheduler = slot;
}

/** Installs the accessor on Express's base request prototype above `req`'s; false without one. */
function serve(prototype: object | null): boolean {
  const base = expressRequestOf(prototype);
  if (base === undefined || prototype === null) return false;
  if (Object.getOwnPropertyDescriptor(base, "llmScheduler")?.get !== getSlot)
    Object.defineProperty(base, "llmScheduler", { configurable: true, get: getSlot, set: setSlot });
  served = prototype;
  return true;
}

/** Express's `request` (the object right above Node's `IncomingMessage.prototype`) in the chain, if any. */
function expressRequestOf(prototype: object | null): object | undefined {
  let object = prototype;
  while (object !== null) {
    const above = Object.getPrototypeOf(object) as object | null;
    if (above === IncomingMessage.prototype) return object;
    object = above;
  }
  return undefined;
}
