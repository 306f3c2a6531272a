const encoder = new TextEncoder();

const BEARER = /^Bearer[ \t]+(\S{1,4096})[ \t]*$/i;

/**
 * A tenant per API key without a key table: `key-sha256:` and the full SHA-256 of the request's
 * `Authorization: Bearer` key (64 hex digits, Web Crypto), or `undefined` (a 401) without one. Two
 * keys share a tenant only if SHA-256 collides. The id is derived from a credential: keep it out of
 * anything served without authentication (metrics labels, dashboards, logs), and give out only
 * random keys of 128 bits or more (the hash is unsalted, so a short key could be guessed from it).
 *
 * @example
 * const batches = createBatches({ scheduler, execute, tenant: bearerKeyTenant });
 */
export async function bearerKeyTenant(request: Request): Promise<string | undefined> {
  const key = BEARER.exec(request.headers.get("authorization") ?? "")?.[1];
  if (key === undefined) return undefined;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(key)));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return `key-sha256:${hex}`;
}
