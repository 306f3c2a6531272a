const encoder = new TextEncoder();

/**
 * The SHA-256 of a string, as 64 lowercase hex digits (Web Crypto: Node, Bun, Deno, workers).
 *
 * @example
 * await sha256Hex("test"); // "9f86d081…"
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * True when two strings of hex digits are equal, in time that depends on their length only (every code
 * unit is compared; no early exit).
 *
 * @example
 * sameDigest(await sha256Hex(given), stored);
 */
export function sameDigest(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
