/**
 * A new id: the prefix, `_` and 24 hex digits (e.g. a batch id `batch_…`).
 *
 * @example
 * newId("batch"); // "batch_3f2a…" (24 hex digits)
 */
export function newId(prefix: string): string {
  return `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}
