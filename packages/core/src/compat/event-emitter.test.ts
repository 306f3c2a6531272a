import { describe, expect, it } from "vitest";
import { EventEmitter } from "./event-emitter.js";

interface Events {
  tick: [n: number];
  pair: [a: string, b: number];
  error: [error: unknown];
}

describe("EventEmitter (Node semantics on plain arrays)", () => {
  it("calls listeners in the order they were added, with every argument, and chains", () => {
    const emitter = new EventEmitter<Events>();
    const calls: string[] = [];
    const result = emitter
      .on("pair", (a, b) => calls.push(`first ${a} ${b}`))
      .addListener("pair", (a, b) => calls.push(`second ${a} ${b}`));
    expect(result).toBe(emitter);
    expect(emitter.emit("pair", "x", 1)).toBe(true);
    expect(emitter.emit("tick", 1)).toBe(false);
    expect(calls).toEqual(["first x 1", "second x 1"]);
  });

  it("removes a once listener before it runs, so a re-entrant emit does not call it again", () => {
    const emitter = new EventEmitter<Events>();
    const seen: number[] = [];
    emitter.once("tick", (n) => {
      seen.push(n);
      if (n === 1) emitter.emit("tick", 2);
    });
    emitter.emit("tick", 1);
    emitter.emit("tick", 3);
    expect(seen).toEqual([1]);
    expect(emitter.listenerCount("tick")).toBe(0);
  });

  it("off removes the last registration of that function, once listeners included", () => {
    const emitter = new EventEmitter<Events>();
    const seen: string[] = [];
    const a = (n: number) => seen.push(`a${n}`);
    const b = (n: number) => seen.push(`b${n}`);
    emitter.on("tick", a).on("tick", b).on("tick", a).once("tick", b);
    emitter.off("tick", a).removeListener("tick", b);
    expect(emitter.listeners("tick")).toEqual([a, b]);
    emitter.emit("tick", 1);
    expect(seen).toEqual(["a1", "b1"]);
    emitter.off("tick", (n: number) => n); // not registered: nothing happens
    expect(emitter.listenerCount("tick")).toBe(2);
  });

  it("keeps the list an emit started with when listeners are added or removed during it", () => {
    const emitter = new EventEmitter<Events>();
    const seen: string[] = [];
    const late = () => seen.push("late");
    const second = () => seen.push("second");
    emitter.on("tick", () => {
      seen.push("first");
      emitter.off("tick", second);
      emitter.on("tick", late);
    });
    emitter.on("tick", second);
    emitter.emit("tick", 1);
    expect(seen).toEqual(["first", "second"]);
    emitter.emit("tick", 2);
    expect(seen).toEqual(["first", "second", "first", "late"]);
  });

  it("throws a listener's error to the caller of emit and skips the listeners after it", () => {
    const emitter = new EventEmitter<Events>();
    const seen: string[] = [];
    emitter.on("tick", () => {
      throw new Error("boom");
    });
    emitter.on("tick", () => seen.push("after"));
    expect(() => emitter.emit("tick", 1)).toThrow("boom");
    expect(seen).toEqual([]);
  });

  it("throws an error event nobody listens to, and hands it to a listener otherwise", () => {
    const emitter = new EventEmitter<Events>();
    const failure = new Error("unheard");
    expect(() => emitter.emit("error", failure)).toThrow(failure);
    expect(() => emitter.emit("error", "text")).toThrow("Unhandled error: text");
    const heard: unknown[] = [];
    emitter.on("error", (error) => heard.push(error));
    expect(emitter.emit("error", failure)).toBe(true);
    expect(heard).toEqual([failure]);
  });

  it("removes all listeners of one event or of all, lists event names, and refuses a non-function", () => {
    const emitter = new EventEmitter<Events>();
    emitter.on("tick", () => {}).on("pair", () => {});
    expect(emitter.eventNames()).toEqual(["tick", "pair"]);
    emitter.removeAllListeners("tick");
    expect(emitter.eventNames()).toEqual(["pair"]);
    emitter.removeAllListeners();
    expect(emitter.eventNames()).toEqual([]);
    expect(() => emitter.on("tick", "nope" as never)).toThrow("Expected `listener` to be a function");
  });
});
