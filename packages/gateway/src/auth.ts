import { sameDigest, sha256Hex } from "./config/digest.js";
import type { ResolvedKey } from "./config/keys-config.js";

/** Who a request comes from: the key's tenant and priority ceiling (`undefined`: the model's default). */
export interface Caller {
  readonly tenant: string;
  readonly priority: string | undefined;
}

/** The tenant of every caller with `auth: none`. */
export const ANONYMOUS: Caller = { tenant: "anonymous", priority: undefined };

const BEARER = /^Bearer[ \t]+(\S{1,4096})[ \t]*$/i;

/** The request's `Authorization: Bearer` key, or `undefined`. */
export function bearerOf(request: Request): string | undefined {
  return BEARER.exec(request.headers.get("authorization") ?? "")?.[1];
}

/**
 * The configured keys, looked up by the SHA-256 of the presented key. The table is indexed by digest, so
 * the lookup's timing depends on a hash of what the caller sent, never on a stored key; the digest found
 * is then compared in full in constant time. Plain keys are hashed when the config is read and never kept.
 *
 * @example
 * const table = new KeyTable(config.keys, config.auth, config.admin);
 * const caller = await table.caller(request); // undefined: 401
 */
export class KeyTable {
  readonly #byDigest: ReadonlyMap<string, ResolvedKey>;
  readonly #open: boolean;
  readonly #admin: string | undefined;

  constructor(keys: readonly ResolvedKey[], auth: "keys" | "none", admin: string | undefined) {
    this.#byDigest = new Map(keys.map((key) => [key.sha256, key]));
    this.#open = auth === "none";
    this.#admin = admin;
  }

  /** The caller of a request, or `undefined` when its key is missing or unknown (answer 401). */
  async caller(request: Request): Promise<Caller | undefined> {
    if (this.#open) return ANONYMOUS;
    const key = bearerOf(request);
    if (key === undefined) return undefined;
    const digest = await sha256Hex(key);
    const found = this.#byDigest.get(digest);
    if (found === undefined || !sameDigest(found.sha256, digest)) return undefined;
    return { tenant: found.tenant, priority: found.priority };
  }

  /** True when the request carries the admin key (never true without one configured). */
  async isAdmin(request: Request): Promise<boolean> {
    const key = bearerOf(request);
    if (this.#admin === undefined || key === undefined) return false;
    return sameDigest(await sha256Hex(key), this.#admin);
  }
}
