import { describe, expect, it } from "vitest";
import { DrainGauge } from "./drain.js";

describe("DrainGauge", () => {
  it("measures starts per second across the samples, per priority", () => {
    const gauge = new DrainGauge();
    gauge.record({ batch: 100, interactive: 7 }, 0);
    expect(gauge.rate("batch")).toBeUndefined(); // one sample tells nothing
    gauge.record({ batch: 130, interactive: 7 }, 1_000);
    gauge.record({ batch: 160, interactive: 7 }, 2_000);
    expect(gauge.rate("batch")).toBe(30);
    expect(gauge.rate("interactive")).toBe(0);
    expect(gauge.rate("unknown")).toBeUndefined();
  });

  it("keeps a 10 s window and at most one sample per 250 ms besides the newest", () => {
    const gauge = new DrainGauge();
    for (let t = 0; t <= 20_000; t += 10)
      gauge.record({ batch: t < 15_000 ? t / 10 : 1_500 + (t - 15_000) / 5 }, t);
    // the window now spans 10 s: 5 s at 100 starts/s and 5 s at 200 starts/s
    expect(gauge.rate("batch")).toBeCloseTo(150, 0);
  });

  it("starts again when the counters go back (Redis lost them)", () => {
    const gauge = new DrainGauge();
    gauge.record({ batch: 500 }, 0);
    gauge.record({ batch: 600 }, 1_000);
    gauge.record({ batch: 3 }, 1_500);
    expect(gauge.rate("batch")).toBeUndefined();
    gauge.record({ batch: 13 }, 2_500);
    expect(gauge.rate("batch")).toBe(10);
  });

  it("ignores a reply that ran before the newest one but arrived after it", () => {
    const gauge = new DrainGauge();
    gauge.record({ batch: 100 }, 0);
    gauge.record({ batch: 200 }, 1_000);
    gauge.record({ batch: 190 }, 1_010); // an older count, late: not a loss of the counters
    expect(gauge.rate("batch")).toBe(100);
    gauge.record({ batch: 300 }, 2_000);
    expect(gauge.rate("batch")).toBe(100);
  });
});
