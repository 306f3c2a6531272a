import { describe, expect, it } from "vitest";
import { type Axis, textWidth, ticks, timeUnit } from "./chart-axis.js";
import { type ChartSpec, lineChart, type Series } from "./svg-chart.js";

interface Box {
  readonly text: string;
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

const decode = (text: string) =>
  text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];

/** The box each `<text>` of a chart covers, by the same generous width estimate the layout uses. */
function textBoxes(svg: string): Box[] {
  return [...svg.matchAll(/<text([^>]*)>([^<]*)<\/text>/g)].map(([, tag = "", raw = ""]) => {
    const text = decode(raw);
    const size = Number(attr(tag, "font-size") ?? 11);
    const width = textWidth(text, size);
    const rotated = /translate\(([\d.]+),([\d.]+)\) rotate\(-90\)/.exec(tag);
    if (rotated !== null) {
      const [x, y] = [Number(rotated[1]), Number(rotated[2])];
      return { text, left: x - size, right: x, top: y - width / 2, bottom: y + width / 2 };
    }
    const x = Number(attr(tag, "x"));
    const y = Number(attr(tag, "y"));
    const anchor = attr(tag, "text-anchor") ?? "start";
    const left = anchor === "end" ? x - width : anchor === "middle" ? x - width / 2 : x;
    return { text, left, right: left + width, top: y - size, bottom: y + 3 };
  });
}

function plotOf(svg: string) {
  const rect = /<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/.exec(svg)!;
  const [x, y, w, h] = rect.slice(1).map(Number) as [number, number, number, number];
  return { left: x, top: y, right: x + w, bottom: y + h };
}

function pathPoints(svg: string): [number, number][] {
  const points: [number, number][] = [];
  for (const [, d = ""] of svg.matchAll(/<path d="([^"]*)"/g)) {
    for (const [, x, y] of d.matchAll(/[ML]([\d.-]+),([\d.-]+)/g)) points.push([Number(x), Number(y)]);
  }
  return points;
}

const series = (names: readonly string[], xMax: number, yMax: number): Series[] =>
  names.map((name, i) => ({
    name,
    color: "#123456",
    points: Array.from(
      { length: 50 },
      (_, k) => [(xMax * k) / 49, (yMax * ((k + i * 7) % 50)) / 49] as const,
    ),
  }));

const hard: ChartSpec = {
  title: "A title long enough to need cutting: queue depth over a whole day of heavy traffic, per priority",
  x: { min: 0, max: 100_000_000, label: "time", time: true },
  y: { min: 0, max: 1_000_000_000, label: "requests" },
  series: series(["interactive", "batch", "a tenant with a long name", "another long tenant"], 1e8, 1e9),
};

describe("lineChart", () => {
  it.each([
    ["a day of time and huge counts", hard],
    [
      "a log time axis from 1 ms to an hour",
      { ...hard, x: { min: 1, max: 3_600_000, label: "wait", log: true, time: true } },
    ],
    ["a narrow chart", { ...hard, width: 300, height: 200 }],
  ] as const)("keeps every label inside the viewBox: %s", (_, spec) => {
    const svg = lineChart(spec);
    const [width, height] = /viewBox="0 0 (\d+) (\d+)"/.exec(svg)!.slice(1).map(Number) as [number, number];
    const boxes = textBoxes(svg);
    expect(boxes.length).toBeGreaterThan(10);
    for (const box of boxes) {
      expect(box.left, box.text).toBeGreaterThanOrEqual(0);
      expect(box.right, box.text).toBeLessThanOrEqual(width);
      expect(box.top, box.text).toBeGreaterThanOrEqual(0);
      expect(box.bottom, box.text).toBeLessThanOrEqual(height);
    }
  });

  it("keeps y tick labels left of the plot and x tick labels below it", () => {
    const svg = lineChart(hard);
    const plot = plotOf(svg);
    const boxes = textBoxes(svg);
    const yLabels = boxes.filter((box) => /^\d+$/.test(box.text));
    expect(yLabels.length).toBeGreaterThanOrEqual(3);
    for (const box of yLabels) expect(box.right).toBeLessThanOrEqual(plot.left);
    for (const box of boxes.filter((b) => / h$/.test(b.text)))
      expect(box.top).toBeGreaterThanOrEqual(plot.bottom);
  });

  it("puts the legend in a band of its own: no legend box overlaps the plot or a plotted point", () => {
    const svg = lineChart(hard);
    // Absolute coordinates only, so the boxes below are where the legend is really drawn.
    expect(svg).not.toMatch(/<g transform/);
    const plot = plotOf(svg);
    const legend = textBoxes(svg).filter((box) => hard.series.some((s) => s.name === box.text));
    expect(legend).toHaveLength(4);
    for (const box of legend) expect(box.bottom).toBeLessThanOrEqual(plot.top);
    for (const [x, y] of pathPoints(svg)) {
      expect(y).toBeGreaterThanOrEqual(plot.top - 0.1);
      for (const box of legend) {
        const inside = x >= box.left && x <= box.right && y >= box.top && y <= box.bottom;
        expect(inside).toBe(false);
      }
    }
  });

  it.each([
    [1_500, "ms"],
    [90_000, "s"],
    [30 * 60_000, "min"],
    [100_000_000, "h"],
  ] as const)("reads a time axis up to %i ms in %s", (max, unit) => {
    const x: Axis = { min: 0, max, label: "time", time: true };
    const svg = lineChart({ ...hard, x, series: series(["a"], max, 10) });
    const labels = textBoxes(svg).map((box) => box.text);
    expect(labels).toContain(`time (${unit})`);
    const xTicks = labels.filter((text) => text.endsWith(` ${unit}`));
    expect(xTicks.length).toBeGreaterThanOrEqual(3);
    for (const text of xTicks) expect(Number(text.split(" ")[0])).toBeLessThan(2_000);
    expect(timeUnit(max).name).toBe(unit);
  });

  it("puts log time ticks on round durations", () => {
    const x: Axis = { min: 1, max: 36_000_000, label: "wait", log: true, time: true };
    const labels = textBoxes(lineChart({ ...hard, x })).map((box) => box.text);
    for (const tick of ["1 ms", "10 ms", "100 ms", "1 s", "10 s", "1 min", "10 min", "1 h", "10 h"]) {
      expect(labels).toContain(tick);
    }
    expect(ticks(x)).toHaveLength(9);
  });
});
