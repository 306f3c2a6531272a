const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** The start of an FNV-1a hash, to pass to {@link fnv1aUpdate}. */
export const FNV1A_START = FNV_OFFSET;

/**
 * Feeds at most `maxChars` UTF-16 code units of `text` into a running 32-bit FNV-1a hash (each code
 * unit as two bytes, low first). Web-standard and allocation-free: no `TextEncoder`, no crypto.
 *
 * @example
 * const state = fnv1aUpdate(fnv1aUpdate(FNV1A_START, "system"), "You are helpful.");
 */
export function fnv1aUpdate(state: number, text: string, maxChars = text.length): number {
  let hash = state;
  const end = Math.min(text.length, maxChars);
  for (let index = 0; index < end; index++) {
    const unit = text.charCodeAt(index);
    hash = Math.imul(hash ^ (unit & 0xff), FNV_PRIME);
    hash = Math.imul(hash ^ (unit >>> 8), FNV_PRIME);
  }
  return hash >>> 0;
}

/**
 * Spreads a 32-bit hash over the whole range (murmur3's finalizer): FNV-1a of strings that differ only
 * in their last character lands close together, which a hash ring must not see.
 */
export function mix32(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A well-spread 32-bit hash of a string (FNV-1a, then {@link mix32}).
 *
 * @example
 * hashString("r0#17"); // the same number on every runtime
 */
export function hashString(text: string): number {
  return mix32(fnv1aUpdate(FNV1A_START, text));
}
