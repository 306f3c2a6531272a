import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import type { Scheduler } from "@llm-scheduler/core";
import express from "express";
import { describe, expect, it } from "vitest";
import { flatten, flattenRequests } from "./flatten.js";
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

  it("never throws, and leaves a proxy alone: its traps never see a key of ours", () => {
    const calls: string[] = [];
    const strict = new Proxy(expressLike({ a: 1 }), {
      set(_target, key) {
        calls.push(`set ${String(key)}`);
        throw new TypeError("read-only request");
      },
      deleteProperty(_target, key) {
        calls.push(`delete ${String(key)}`);
        return false;
      },
      isExtensible(target) {
        calls.push("isExtensible");
        return Reflect.isExtensible(target);
      },
    });
    expect(() => flatten(strict)).not.toThrow();
    expect(calls).toEqual([]);
    expect(Reflect.ownKeys(strict)).toEqual(["kind", "count", "a"]);
    // an ordinary object whose prototype is such a proxy: the set reaches the trap, which throws
    const inherits = Object.create(strict) as object;
    expect(() => flatten(inherits)).not.toThrow();
    expect(Reflect.ownKeys(inherits)).toEqual([]);
  });

  it("flattenRequests() flattens Express's req and res before the route, which sees them unchanged", async () => {
    const seen: { req: object; res: object; keys: PropertyKey[] }[] = [];
    const app = express();
    app.use(flattenRequests());
    const middleware = schedulerMiddleware();
    app.use("/v1", middleware);
    app.get("/v1/items/:id", (req, res) => {
      seen.push({ req, res, keys: Reflect.ownKeys(req) });
      res.json({ id: req.params.id, held: req.llmScheduler !== undefined });
    });
    await served(app, ["a", "b"], middleware.scheduler);
    for (const { req, res, keys } of seen) {
      expect(fastProperties(req)).toBe(false);
      expect(fastProperties(res)).toBe(false);
      expect(keys.filter((key) => typeof key === "symbol" && key.description?.includes("flatten"))).toEqual(
        [],
      );
    }
  });

  it("is not done by schedulerMiddleware() alone: flattening is opt-in", async () => {
    const seen: { req: object; res: object }[] = [];
    const app = express();
    const middleware = schedulerMiddleware();
    app.use("/v1", middleware);
    app.get("/v1/items/:id", (req, res) => {
      seen.push({ req, res });
      res.json({ id: req.params.id, held: req.llmScheduler !== undefined });
    });
    await served(app, ["a"], middleware.scheduler);
    expect(fastProperties(seen[0]!.req)).toBe(true);
    expect(fastProperties(seen[0]!.res)).toBe(true);
  });
});

/** Serves `app` on 127.0.0.1 for one GET per id, each answered `{ id, held: true }`, then closes it. */
async function served(app: express.Express, ids: string[], scheduler: Scheduler): Promise<void> {
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    for (const id of ids) {
      const answer = await fetch(`http://127.0.0.1:${port}/v1/items/${id}`);
      expect(await answer.json()).toEqual({ id, held: true });
    }
  } finally {
    server.close();
    await scheduler.close();
  }
}
