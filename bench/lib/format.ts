/** Number formatting shared by every table. */

/** 12345.6 -> "12,346"; small values keep `digits` decimals. */
export function num(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return String(value);
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A ratio such as "2.31x". */
export function ratio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}x` : String(value);
}

/** A median with its range: "51,234 (48,001–53,900)". */
export function spread(summary: { median: number; min: number; max: number }, digits = 0): string {
  return `${num(summary.median, digits)} (${num(summary.min, digits)}–${num(summary.max, digits)})`;
}
