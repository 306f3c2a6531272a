import { describe, expect, it } from "vitest";
import { countedBody, relativeSpeeds, resolveSpeed, SpeedMeter } from "./speed.js";

const options = { halfLife: 1, minFactor: 0.25, minSampleMs: 50 };

describe("SpeedMeter", () => {
  it("has no estimate before a sample, then moves halfway to each sample with a half-life of one", () => {
    const meter = new SpeedMeter(options);
    expect(meter.rate).toBeUndefined();
    meter.record(400, 100); // 4 a ms
    expect(meter.rate).toBe(4);
    meter.record(200, 100); // 2 a ms: halfway from 4
    expect(meter.rate).toBeCloseTo(3, 10);
    meter.record(200, 100);
    expect(meter.rate).toBeCloseTo(2.5, 10);
  });

  it("weighs an old sample half after `halfLife` samples", () => {
    const meter = new SpeedMeter({ ...options, halfLife: 10 });
    meter.record(1_000, 100); // 10 a ms
    for (let i = 0; i < 10; i++) meter.record(0.0001 * 100, 100); // ~0
    expect(meter.rate).toBeCloseTo(5, 2);
  });

  it("drops answers streamed over less than `minSampleMs`, empty ones and nonsense", () => {
    const meter = new SpeedMeter(options);
    meter.record(10_000, 49);
    meter.record(0, 500);
    meter.record(Number.NaN, 500);
    meter.record(100, Number.POSITIVE_INFINITY);
    expect(meter.rate).toBeUndefined();
    meter.record(100, 50);
    expect(meter.rate).toBe(2);
  });
});

describe("relativeSpeeds", () => {
  it("is each rate over the median, at most 1, at least `minFactor`; no estimate counts as full speed", () => {
    expect(relativeSpeeds([2, 2, 1, undefined], 0.25)).toEqual([1, 1, 0.5, 1]);
    expect(relativeSpeeds([4, 4, 4, 0.1], 0.25)).toEqual([1, 1, 1, 0.25]);
    expect(relativeSpeeds([1, 2, 3, 4], 0.1)).toEqual([0.4, 0.8, 1, 1]); // median 2.5
    expect(relativeSpeeds([undefined, undefined], 0.25)).toEqual([1, 1]);
  });
});

describe("resolveSpeed", () => {
  it("fills defaults, turns off with false and rejects unknown keys and values out of range", () => {
    expect(resolveSpeed("speed", undefined)).toEqual({ halfLife: 20, minFactor: 0.25, minSampleMs: 50 });
    expect(resolveSpeed("speed", { minFactor: 1 })?.minFactor).toBe(1);
    expect(resolveSpeed("speed", false)).toBeUndefined();
    expect(() => resolveSpeed("speed", { minfactor: 0.5 })).toThrowError(/did you mean `minFactor`/);
    expect(() => resolveSpeed("speed", { minFactor: 0 })).toThrowError(/speed\.minFactor/);
    expect(() => resolveSpeed("speed", { minFactor: 1.5 })).toThrowError(/speed\.minFactor/);
    expect(() => resolveSpeed("speed", { halfLife: 0 })).toThrowError(/speed\.halfLife/);
    expect(() => resolveSpeed("speed", { minSampleMs: -1 })).toThrowError(/speed\.minSampleMs/);
    expect(() => resolveSpeed("speed", 3)).toThrowError(/`speed` to be an object/);
  });
});

describe("countedBody", () => {
  /** A body the test feeds by hand, counted against an injected clock. */
  function setUp() {
    const clock = { now: 1_000 };
    const samples: Array<[number, number]> = [];
    let source!: ReadableStreamDefaultController<Uint8Array>;
    const body = countedBody(
      new ReadableStream<Uint8Array>({
        start(controller) {
          source = controller;
        },
      }),
      () => clock.now,
      (units, ms) => samples.push([units, ms]),
    );
    return { clock, samples, source, reader: body.getReader() };
  }

  it("passes the body on and reports the bytes after the first chunk over the ms since it", async () => {
    const { clock, samples, source, reader } = setUp();
    let received = 0;
    for (const size of [7, 10, 10, 10]) {
      source.enqueue(new Uint8Array(size));
      received += (await reader.read()).value!.byteLength;
      clock.now += 20;
    }
    expect(samples).toEqual([]);
    source.close();
    expect((await reader.read()).done).toBe(true);
    expect(received).toBe(37);
    expect(samples).toEqual([[30, 80]]);
  });

  it("reports nothing when the body is cancelled", async () => {
    const { clock, samples, source, reader } = setUp();
    source.enqueue(new Uint8Array(5));
    await reader.read();
    clock.now += 100;
    await reader.cancel();
    expect(samples).toEqual([]);
  });
});
