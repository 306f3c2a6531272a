import { ErrorCode, SchedulerError } from "./errors.js";

function shown(value: unknown): string {
  if (typeof value === "function") return value.name === "" ? "[function]" : `[function ${value.name}]`;
  if (typeof value === "number") return String(value);
  if (typeof value === "string")
    return value.length > 64 ? `[a string of ${value.length} characters]` : value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function describe(value: unknown): string {
  return `\`${shown(value)}\` (${value === null ? "null" : typeof value})`;
}

/** The one shape of every validation message: ``Expected `field` to be …, got `value` (type)``. */
export function invalidOption(field: string, expected: string, value: unknown): SchedulerError {
  return new SchedulerError(
    ErrorCode.INVALID_OPTION,
    `Expected \`${field}\` to be ${expected}, got ${describe(value)}`,
  );
}

/** Edit distance between two short strings (option names): insertions, deletions and substitutions. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Names as a message lists them: `` `a`, `b` ``. */
export function listed(names: readonly string[]): string {
  return names.map((name) => `\`${name}\``).join(", ");
}

/** The known name closest to `key`, when it is close enough to be a likely typo. */
export function nearest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(key.length / 3)) + 1;
  for (const name of known) {
    const d = distance(key.slice(0, 64), name);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * Throws `INVALID_OPTION` for the first key of `value` that is not in `known`, naming the key with its
 * path and the nearest known one. The one shape of every unknown-key message in every package:
 * ``Unknown option `priorities.batch.queueTimeout`; did you mean `queueTimeoutMs`? (known: `weight`, …)``.
 *
 * @example
 * rejectUnknownKeys("priorities.batch", options.priorities.batch, ["weight", "reserved"]);
 */
export function rejectUnknownKeys(path: string, value: object, known: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const shownKey = key.length > 64 ? `${key.slice(0, 64)}…` : key;
    const full = path === "" ? shownKey : `${path}.${shownKey}`;
    const guess = nearest(key, known);
    const hint = guess === undefined ? "" : `; did you mean \`${guess}\`?`;
    throw new SchedulerError(
      ErrorCode.INVALID_OPTION,
      `Unknown option \`${full}\`${hint} (known: ${listed(known)})`,
    );
  }
}

/** The largest `maxConcurrency` (and so the largest `cost`): a million units in flight. */
export const MAX_CONCURRENCY = 1_000_000;
/** The longest finite duration an option takes: 365 days, in ms (longer means `Infinity`). */
export const MAX_DURATION_MS = 365 * 24 * 3_600_000;
/** The largest finite queue bound: ten million waiting tasks. */
export const MAX_QUEUE = 10_000_000;

/**
 * An integer in `[min, max]`; `fallback` (when given) stands for a value left out.
 *
 * @example
 * integerIn("retry.maxAttempts", options.maxAttempts, 1, 100, 3); // 3 when left out
 */
export function integerIn(
  field: string,
  value: unknown,
  min: number,
  max: number,
  fallback?: number,
): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw invalidOption(field, `an integer from ${min} to ${max}`, value);
  }
  return value;
}

export function plainObject(field: string, value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw invalidOption(field, "an object", value);
  }
  return value as Record<string, unknown>;
}
