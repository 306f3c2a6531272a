import { createScheduler } from "@llm-scheduler/core";
import fc from "fast-check";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { collectMetrics } from "./collect.js";
import { tenantLabelValue } from "./label-value.js";

/** Decodes a label value back to the tenant name (the inverse the README describes). */
function decode(value: string): string {
  return value.replace(
    /%u([0-9A-F]{4})|%([0-9A-F]{2})/g,
    (_, unit: string | undefined, byte: string | undefined) =>
      String.fromCharCode(Number.parseInt(unit ?? byte!, 16)),
  );
}

/** What the value is after a trip through UTF-8, as a scrape sends it. */
const overTheWire = (value: string) => new TextDecoder().decode(new TextEncoder().encode(value));

/** Names made of any UTF-16 code units, lone surrogates, `%` and control characters included. */
const names = fc.string({
  unit: fc.oneof(
    fc.constantFrom("%", "\uD800", "\uDC00", "\n", "u", "2", "5"),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  ),
  maxLength: 12,
});

describe("tenantLabelValue", () => {
  it("keeps ordinary names as they are", () => {
    for (const name of ["team-a", "ünïcødé", "日本", "🙂", 'quote"back\\slash', ""]) {
      expect(tenantLabelValue(name)).toBe(name);
    }
  });

  it("gives valid UTF-8 that survives the wire unchanged", () => {
    fc.assert(
      fc.property(names, (name) => {
        const value = tenantLabelValue(name);
        expect(value).not.toMatch(/\p{Cs}/u); // no lone surrogate
        expect(overTheWire(value)).toBe(value);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: none may be left
        expect(value).not.toMatch(/[\x00-\x1f\x7f]/);
      }),
      { numRuns: 2_000 },
    );
  });

  it("never gives two names the same value: it decodes back to the name", () => {
    fc.assert(
      fc.property(names, names, (a, b) => {
        expect(decode(tenantLabelValue(a))).toBe(a);
        if (a !== b) expect(overTheWire(tenantLabelValue(a))).not.toBe(overTheWire(tenantLabelValue(b)));
      }),
      { numRuns: 2_000 },
    );
  });

  it("gives tenants with different lone surrogates their own series in one scrape", async () => {
    const scheduler = createScheduler({ maxConcurrency: 4 });
    const registry = new Registry();
    collectMetrics(scheduler, { registry, tenantLabel: { top: 4 } });
    const tenants = ["a\uD800", "a\uD801", "a\uDC00", "a%uD800"];
    for (const tenant of tenants) for (let i = 0; i < 3; i++) await scheduler.run(() => 1, { tenant });
    await registry.metrics(); // ranks them
    for (const tenant of tenants) await scheduler.run(() => 1, { tenant });
    const lines = overTheWire(await registry.metrics())
      .split("\n")
      .filter((line) => line.startsWith("llm_scheduler_requests_total{"));
    const series = lines.map((line) => line.slice(0, line.lastIndexOf(" ")));
    expect(new Set(series).size).toBe(series.length); // no duplicate series
    const values = series.map((line) => /tenant="([^"]*)"/.exec(line)![1]!);
    expect(new Set(values)).toEqual(new Set(["a%uD800", "a%uD801", "a%uDC00", "a%25uD800", "other"]));
  });
});
