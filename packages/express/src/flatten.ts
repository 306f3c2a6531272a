import { types } from "node:util";
import type { NextFunction, Request, RequestHandler, Response } from "express";

/** Two keys of our own, added and removed again: removing one that is not the last is what counts. */
const FIRST: unique symbol = Symbol("llm-scheduler flatten");
const SECOND: unique symbol = Symbol("llm-scheduler flatten, second");

/**
 * Switches an object to dictionary properties, which V8 shares between objects of one prototype. It
 * depends on V8 (an object whose prototype was swapped gets a hidden class of its own for every property
 * added later; removing a property that is not the last added one switches the object to dictionary
 * mode) and on Express swapping the prototypes of `req` and `res` on every request. Nothing an app can
 * see changes: the two keys are ours and gone again. It never throws: a proxy (whose traps would see
 * the keys) and an object that cannot be extended are left as they are.
 *
 * @example
 * flatten(req); // same properties, dictionary mode from here on
 */
export function flatten(object: object): void {
  try {
    if (types.isProxy(object) || !Object.isExtensible(object)) return;
    if (!Reflect.set(object, FIRST, 0)) return;
    Reflect.set(object, SECOND, 0);
    Reflect.deleteProperty(object, FIRST); // not the last one added: this is the switch
    Reflect.deleteProperty(object, SECOND);
  } catch {
    // a setter or trap on the prototype chain that throws: the object stays as it was made
  }
}

/**
 * Opt-in Express middleware that switches each request's `req` and `res` to dictionary properties,
 * so that V8 can share one hidden class between requests (see "Flattening `req` and `res`" in the
 * README and docs/decisions/0037). Mount it first, with `app.use(flattenRequests())`: Express has
 * swapped the prototypes by then. It changes nothing an app can see and never throws.
 *
 * @example
 * app.use(flattenRequests());
 * app.use("/v1/chat/completions", schedulerMiddleware({ scheduler }));
 */
export function flattenRequests(): RequestHandler {
  return function flattenRequest(req: Request, res: Response, next: NextFunction): void {
    flatten(req);
    flatten(res);
    next();
  };
}
