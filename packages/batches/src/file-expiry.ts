import type { FileRecord } from "./store.js";

/** OpenAI's `expires_after` of an upload, as its two multipart fields give it. */
export interface ExpiresAfter {
  anchor?: string;
  seconds?: string;
}

/**
 * The multipart fields of `expires_after` (as the official clients send a nested object) and the key
 * each fills.
 *
 * @example
 * if (part.name in EXPIRES_AFTER) expiry[EXPIRES_AFTER[part.name]!] = await readText(part, 64);
 */
export const EXPIRES_AFTER: Readonly<Record<string, keyof ExpiresAfter>> = {
  "expires_after[anchor]": "anchor",
  "expires_after[seconds]": "seconds",
};

/** OpenAI's bounds of `expires_after.seconds`: 1 hour to 30 days. */
const MIN_SECONDS = 3_600;
const MAX_SECONDS = 2_592_000;

/**
 * When an uploaded file expires: `createdAt + seconds` when the upload asked (cut to `ttlMs`), else the
 * expiry it was created with; a string is the message of a 400 for an invalid `expires_after`.
 *
 * @example
 * expiresAtOf({ anchor: "created_at", seconds: "3600" }, file, 2_592_000_000); // file.createdAt + 3_600_000
 */
export function expiresAtOf(
  expiry: ExpiresAfter,
  file: FileRecord | undefined,
  ttlMs: number,
): number | string {
  if (file === undefined || (expiry.anchor === undefined && expiry.seconds === undefined)) {
    return file?.expiresAt ?? 0;
  }
  if (expiry.anchor !== "created_at") {
    return `Invalid 'expires_after.anchor': expected 'created_at', got ${JSON.stringify(expiry.anchor ?? null)}.`;
  }
  const seconds = Number(expiry.seconds);
  if (!/^\d{1,7}$/.test(expiry.seconds ?? "") || seconds < MIN_SECONDS || seconds > MAX_SECONDS) {
    return `Invalid 'expires_after.seconds': expected an integer from ${MIN_SECONDS} to ${MAX_SECONDS}.`;
  }
  return file.createdAt + Math.min(seconds * 1_000, ttlMs);
}
