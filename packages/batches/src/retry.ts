import type { RetryPolicy } from "./types.js";

/**
 * Upstream statuses that are tried again: too many requests and every server error.
 *
 * @example
 * isRetryableStatus(503); // true
 */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/**
 * The wait an upstream asked for, in ms: `retry-after-ms` first (what OpenAI's servers send), then
 * `Retry-After` as seconds or as an HTTP date. `undefined` when neither is present and valid.
 *
 * @example
 * retryAfterMs({ "retry-after": "2" }, Date.now()); // 2000
 */
export function retryAfterMs(
  headers: Readonly<Record<string, string>> | undefined,
  wallNow: number,
): number | undefined {
  if (headers === undefined) return undefined;
  const ms = Number(headerOf(headers, "retry-after-ms"));
  if (headerOf(headers, "retry-after-ms") !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headerOf(headers, "retry-after");
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (value.trim() !== "" && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - wallNow);
}

/**
 * A response header by its lower-case `name`, whatever case the executor gave it in.
 *
 * @example
 * headerOf({ "Retry-After": "2" }, "retry-after"); // "2"
 */
export function headerOf(
  headers: Readonly<Record<string, string>> | undefined,
  name: string,
): string | undefined {
  if (headers === undefined) return undefined;
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name) return headers[key];
  return undefined;
}

/**
 * Exponential backoff with full jitter: a uniform draw in `[0, min(maxMs, baseMs * 2^(n - 1)))` after
 * the `n`th failed attempt, at least `minimumMs` (an upstream's `Retry-After`), at most one hour.
 *
 * @example
 * backoffMs({ maxAttempts: 4, baseMs: 1_000, maxMs: 60_000 }, 3, Math.random); // somewhere in [0, 4000)
 */
export function backoffMs(policy: RetryPolicy, failed: number, random: () => number, minimumMs = 0): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(failed - 1, 40));
  const jitter = Math.floor(random() * ceiling);
  return Math.min(3_600_000, Math.max(jitter, minimumMs));
}
