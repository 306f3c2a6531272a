/** Tenant keys and ids longer than this are replaced by {@link shortKey}'s hash. */
export const MAX_KEY_LENGTH = 128;
/** What a hashed key starts with, so that logs and metrics show it is one. */
export const HASHED_KEY_PREFIX = "~fnv64:";

/** 32-bit FNV-1a over UTF-16 code units, from `seed`. */
function fnv1a(text: string, seed: number, bytewise: boolean): number {
  let hash = seed;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (bytewise) {
      hash = Math.imul(hash ^ (unit & 0xff), 0x01000193);
      hash = Math.imul(hash ^ (unit >>> 8), 0x01000193);
    } else {
      hash = Math.imul(hash ^ unit, 0x01000193);
    }
  }
  return hash >>> 0;
}

const hex = (value: number): string => value.toString(16).padStart(8, "0");

/**
 * The key the scheduler uses for a tenant or id: the key itself when it has at most 128 characters,
 * otherwise `~fnv64:` and a 64-bit hash of it (two 32-bit FNV-1a passes; stable across instances and
 * runtimes, not cryptographic). So a 930-character token used as a tenant works, and is never echoed
 * in events, metrics, errors or a shared store. Call it to find a long tenant in `metrics()`.
 *
 * @example
 * shortKey("team-a"); // "team-a"
 * shortKey(authorizationHeader); // "~fnv64:1f0c9a3b5e7d2468" for a long one
 */
export function shortKey(key: string): string {
  if (key.length <= MAX_KEY_LENGTH) return key;
  return HASHED_KEY_PREFIX + hex(fnv1a(key, 0x811c9dc5, false)) + hex(fnv1a(key, 0x050c5d1f, true));
}
