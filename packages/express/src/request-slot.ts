import { IncomingMessage } from "node:http";
import type { RequestSlot } from "@llm-scheduler/adapter-kit";

/**
 * `req.llmScheduler` without a property added to each request. Express gives every request a hidden class
 * (V8 map) of its own, so a property added to one copies its map. Instead, Express's request prototype
 * (the one every app's `app.request` extends, so mounted apps and the parent app see it too) gets an
 * accessor once, and each request's slot is kept in a `WeakMap`. A request that is not an Express one
 * (no such prototype) gets an own property, as before.
 */
const slots = new WeakMap<object, RequestSlot | undefined>();

function getSlot(this: object): RequestSlot | undefined {
  return slots.get(this);
}

function setSlot(this: object, slot: RequestSlot | undefined): void {
  slots.set(this, slot);
}

/** The request prototype last seen to serve the accessor (one per app; nearly always the same one). */
let served: object | undefined;

/**
 * Makes `req.llmScheduler` read `slot`.
 *
 * @example
 * setRequestSlot(req, slot); // req.llmScheduler === slot
 */
export function setRequestSlot(req: { llmScheduler?: RequestSlot }, slot: RequestSlot): void {
  const prototype = Object.getPrototypeOf(req) as object | null;
  if (prototype === served || serve(prototype)) slots.set(req, slot);
  else req.llmScheduler = slot;
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
