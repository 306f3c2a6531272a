import { describe, expect, it } from "vitest";
import { LeastLoaded } from "./picker.js";

describe("LeastLoaded", () => {
  it("sends each request to the server with the fewest in flight, in turn on ties", () => {
    const picker = new LeastLoaded(["a", "b", "c"]);
    const leases = [picker.pick(), picker.pick(), picker.pick()];
    expect(leases.map((l) => l.base)).toEqual(["a", "b", "c"]);
    leases[1]!.release();
    expect(picker.pick().base).toBe("b");
    expect(picker.inFlight()).toEqual([1, 1, 1]);
  });

  it("never puts more than perServer on one server when the scheduler admits perServer * servers", () => {
    const picker = new LeastLoaded(["a", "b"]);
    const held = Array.from({ length: 4 }, () => picker.pick());
    expect(picker.inFlight()).toEqual([2, 2]);
    held[0]!.release();
    held[0]!.release(); // a second release does nothing
    expect(picker.inFlight()).toEqual([1, 2]);
    expect(picker.pick().base).toBe("a");
  });

  it("keeps counting the places taken before a reload on the new picker", () => {
    const old = new LeastLoaded(["a", "b"]);
    const lease = old.pick();
    const next = new LeastLoaded(["a", "c"], old.counts);
    expect(next.inFlight()).toEqual([1, 0]);
    lease.release();
    expect(next.inFlight()).toEqual([0, 0]);
  });
});
