import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import express from "express";
import { describe, expect, it } from "vitest";
import { flatten } from "./flatten.js";
import { schedulerMiddleware } from "./middleware.js";

// V8's own view of an object, to check that flattening does what it is for. The flag only lets
// functions compiled from here on use V8's `%` functions; this file runs in a process of its own.
setFlagsFromString("--allow-natives-syntax");
const fastProperties = new Function("object", "return %HasFastProperties(object)") as (o: object) => boolean;
const sameMap = new Function("a", "b", "return %HaveSameMap(a, b)") as (a: object, b: object) => boolean;

class Message {
  readonly kind = "message";
  count = 1;
}
const swapped = Object.create(Message.prototype) as object;

/** What Express does to each request: a prototype swap, then properties added. */
function expressLike(extra: Record<string, unknown>): Record<string, unknown> {
  const object = new Message() as unknown as Record<string, unknown>;
  Object.setPrototypeOf(object, swapped);
  Object.assign(object, extra);
  return object;
}

/** Every own key with its descriptor, in order. */
function described(object: object): [PropertyKey, PropertyDescriptor | undefined][] {
  return Reflect.ownKeys(object).map((key) => [key, Object.getOwnPropertyDescriptor(object, key)]);
}

describe("flatten", () => {
  it("leaves the keys, their order, descriptors and values as they were", () => {
    const tag = Symbol("tag");
    const object = expressLike({ next: () => 1, baseUrl: "", [tag]: 7 });
    Object.defineProperty(object, "hidden", {
      value: 3,
      enumerable: false,
      writable: false,
      configurable: true,
    });
    Object.defineProperty(object, "computed", { get: () => 4, enumerable: true, configurable: true });
    const before = described(object);
    flatten(object);
    expect(described(object)).toEqual(before);
    expect(object.computed).toBe(4);
    expect(Object.getPrototypeOf(object)).toBe(swapped);
  });

  it("switches the object to dictionary properties, one map for every object of a prototype", () => {
    const plain = [expressLike({ a: 1 }), expressLike({ a: 2 })];
    // Why it is there: after a prototype swap, every property added makes a map of the object's own,
    // so two objects with the same keys, added in the same order, still differ.
    expect(Reflect.ownKeys(plain[0]!)).toEqual(Reflect.ownKeys(plain[1]!));
    expect(sameMap(plain[0]!, plain[1]!)).toBe(false);
    const flat = [expressLike({ a: 1 }), expressLike({ a: 2 })];
    for (const object of flat) flatten(object);
    flat[1]!.b = 3; // added after flattening: still the same map
    expect(fastProperties(flat[0]!)).toBe(false);
    expect(sameMap(flat[0]!, flat[1]!)).toBe(true);
  });

  it("leaves an object that cannot be extended alone", () => {
    const frozen = Object.freeze(expressLike({ a: 1 }));
    const sealed = Object.seal(expressLike({ a: 1 }));
    expect(() => flatten(frozen)).not.toThrow();
    expect(() => flatten(sealed)).not.toThrow();
    expect(fastProperties(frozen)).toBe(true);
    expect(Reflect.ownKeys(sealed)).toEqual(["kind", "count", "a"]);
  });

  it("is what schedulerMiddleware() does to Express's req and res before the route runs", async () => {
    const seen: { req: object; res: object }[] = [];
    const app = express();
    const middleware = schedulerMiddleware();
    app.use("/v1", middleware);
    app.get("/v1/items/:id", (req, res) => {
      seen.push({ req, res });
      res.json({ id: req.params.id, held: req.llmScheduler !== undefined });
    });
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      for (const id of ["a", "b"]) {
        const answer = await fetch(`http://127.0.0.1:${port}/v1/items/${id}`);
        expect(await answer.json()).toEqual({ id, held: true });
      }
    } finally {
      server.close();
      await middleware.scheduler.close();
    }
    const [first, second] = seen as [{ req: object; res: object }, { req: object; res: object }];
    expect(fastProperties(first.req)).toBe(false);
    expect(sameMap(first.req, second.req)).toBe(true);
    expect(sameMap(first.res, second.res)).toBe(true);
  });
});
