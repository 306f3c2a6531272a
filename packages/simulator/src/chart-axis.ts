/** An axis: its range, whether it is logarithmic, and how its tick labels read. */
export interface Axis {
  readonly min: number;
  readonly max: number;
  readonly label: string;
  readonly log?: boolean;
  /**
   * The values are durations in milliseconds: the ticks fall on round numbers of a unit chosen by the
   * range (ms, s, min or h), the labels read `30 s`, and a linear axis's label gets the unit,
   * `time (min)`. `format` is then ignored.
   */
  readonly time?: boolean;
  readonly format?: (value: number) => string;
}

/** A unit of time for an axis. */
export interface TimeUnit {
  readonly name: "ms" | "s" | "min" | "h";
  readonly ms: number;
}

const UNITS: readonly TimeUnit[] = [
  { name: "ms", ms: 1 },
  { name: "s", ms: 1_000 },
  { name: "min", ms: 60_000 },
  { name: "h", ms: 3_600_000 },
];

/** Tick values on a log time axis: round numbers of each unit, from 1 ms to 1,000 h. */
const LOG_TIME_TICKS = [1, 10, 100, 1_000, 10_000, 60_000, 600_000, 3_600_000, 36_000_000, 360_000_000];

/**
 * The unit a time axis spanning `spanMs` reads in: the largest one it spans at least twice, so
 * 90 seconds reads `90 s` and 100,000 seconds reads `27.8 h`.
 *
 * @example
 * timeUnit(90_000).name; // "s"
 * timeUnit(100_000_000).name; // "h"
 */
export function timeUnit(spanMs: number): TimeUnit {
  let chosen = UNITS[0]!;
  for (const unit of UNITS) if (spanMs >= 2 * unit.ms) chosen = unit;
  return chosen;
}

/** `0.5` -> `"0.5"`, `1200` -> `"1200"`: at most three decimals, no trailing zeros. */
function plain(value: number): string {
  return String(Number(value.toFixed(3)));
}

/** A tick label for a duration in the largest unit it fills (log axes: each tick has its own). */
function shortDuration(ms: number): string {
  let unit = UNITS[0]!;
  for (const candidate of UNITS) if (ms >= candidate.ms * 0.999) unit = candidate;
  return `${plain(ms / unit.ms)} ${unit.name}`;
}

function niceStep(span: number, count: number): number {
  const raw = (span || 1) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw * 0.999) ?? raw;
}

function linearTicks(min: number, max: number, scale: number): number[] {
  const step = niceStep((max - min) / scale, 5) * scale;
  const out: number[] = [];
  for (let v = Math.ceil(min / step - 1e-9) * step; v <= max + step * 1e-9; v += step) {
    out.push(Number(v.toPrecision(12)));
  }
  return out;
}

function logTicks(axis: Axis): number[] {
  const candidates =
    axis.time === true
      ? LOG_TIME_TICKS
      : Array.from({ length: 31 }, (_, i) => 10 ** (i - 15)).filter((v) => v > 0);
  return candidates.filter((v) => v >= axis.min * 0.9999 && v <= axis.max * 1.0001);
}

/**
 * The tick values of an axis: about five round steps on a linear one (round in its time unit for a
 * time axis), powers of ten or round durations on a log one.
 *
 * @example
 * ticks({ min: 0, max: 7_200_000, label: "time", time: true }); // every 20 min, in ms
 */
export function ticks(axis: Axis): number[] {
  if (axis.log === true) return logTicks(axis);
  const scale = axis.time === true ? timeUnit(axis.max - axis.min).ms : 1;
  return linearTicks(axis.min, axis.max, scale);
}

/**
 * How a tick of this axis reads: the axis's own format, or for a time axis the value in the axis's
 * unit (linear) or in its own unit (log).
 *
 * @example
 * tickFormatter({ min: 0, max: 600_000, label: "time", time: true })(120_000); // "2 min"
 */
export function tickFormatter(axis: Axis): (value: number) => string {
  if (axis.time !== true) return axis.format ?? plain;
  if (axis.log === true) return shortDuration;
  const unit = timeUnit(axis.max - axis.min);
  return (value) => `${plain(value / unit.ms)} ${unit.name}`;
}

/**
 * The axis title, with the unit of a linear time axis: `time (min)`.
 *
 * @example
 * axisTitle({ min: 0, max: 90_000, label: "time", time: true }); // "time (s)"
 */
export function axisTitle(axis: Axis): string {
  if (axis.time !== true || axis.log === true) return axis.label;
  return `${axis.label} (${timeUnit(axis.max - axis.min).name})`;
}

/**
 * Maps a value of the axis to a coordinate between `from` and `to` (log axes clamp at their minimum).
 *
 * @example
 * scaler({ min: 0, max: 10, label: "" }, 0, 100)(5); // 50
 */
export function scaler(axis: Axis, from: number, to: number): (value: number) => number {
  if (axis.log === true) {
    const lo = Math.log10(axis.min);
    const hi = Math.log10(axis.max);
    return (value) => from + ((Math.log10(Math.max(value, axis.min)) - lo) / (hi - lo || 1)) * (to - from);
  }
  return (value) => from + ((value - axis.min) / (axis.max - axis.min || 1)) * (to - from);
}

/**
 * A generous estimate of how wide `text` is drawn in a sans-serif font of `fontSize` px: wide enough
 * that a label laid out by it is never clipped (digits and most letters are narrower).
 *
 * @example
 * textWidth("10 min", 11); // 39.6
 */
export function textWidth(text: string, fontSize: number): number {
  let em = 0;
  for (const char of text) em += /[MW@%mw]/.test(char) ? 0.9 : /[A-Z]/.test(char) ? 0.72 : 0.6;
  return em * fontSize;
}
