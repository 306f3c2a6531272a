import { describe, expect, it } from "vitest";
import { HttpError } from "./errors.js";
import { FaultPicker } from "./faults.js";
import { createRandom } from "./prng.js";

describe("FaultPicker", () => {
  it("draws faults in about their shares, the same on every run", () => {
    const draw = () => {
      const picker = new FaultPicker({ 429: 0.2, hang: 0.1 }, createRandom(1));
      return Array.from({ length: 2000 }, () => picker.pick(undefined));
    };
    const faults = draw();
    expect(faults).toEqual(draw());
    const share = (kind: string) => faults.filter((fault) => fault === kind).length / faults.length;
    expect(share("429")).toBeGreaterThan(0.15);
    expect(share("429")).toBeLessThan(0.25);
    expect(share("hang")).toBeGreaterThan(0.06);
    expect(share("hang")).toBeLessThan(0.14);
    expect(share("500")).toBe(0);
  });

  it("never faults with no rates, and follows setRates", () => {
    const picker = new FaultPicker({}, createRandom(2));
    expect(Array.from({ length: 100 }, () => picker.pick(undefined)).every((f) => f === undefined)).toBe(
      true,
    );
    picker.setRates({ 500: 1 });
    expect(picker.pick(undefined)).toBe("500");
    expect(picker.rates).toEqual({ 429: 0, 500: 1, slow: 0, hang: 0 });
    expect(() => picker.setRates({ slow: -1 })).toThrow(expect.objectContaining({ code: "INVALID_OPTION" }));
  });

  it("obeys the header, including none, over the rates", () => {
    const picker = new FaultPicker({ 500: 1 }, createRandom(3));
    expect(picker.pick("429")).toBe("429");
    expect(picker.pick(" Hang ")).toBe("hang");
    expect(picker.pick("none")).toBeUndefined();
  });

  it("answers 400 to an unknown header value", () => {
    const picker = new FaultPicker({}, createRandom(4));
    expect(() => picker.pick("teapot")).toThrow(HttpError);
    expect(() => picker.pick("teapot")).toThrow("`x-sim-fault` must be one of 429, 500, slow, hang, none");
  });
});
