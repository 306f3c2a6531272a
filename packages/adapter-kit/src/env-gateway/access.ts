// Who may call a gateway built on an adapter: the key table (`API_KEYS`), the optional `anonymous` pool,
// and the admin key for /metrics, /metrics.json and /dashboard. Web standards only (Web Crypto), so the
// same rules serve a gateway on Node, Bun, Deno or Workers.

/** What one API key is allowed to be. */
export interface KeyEntry {
  readonly tenant: string;
  readonly priority: string;
}

/** The tenant that every unknown key shares when `UNKNOWN_KEYS=anonymous`. */
export const ANONYMOUS = "anonymous";

/** The challenge sent with a refused admin request: a browser then asks for the key (any user name). */
export const ADMIN_CHALLENGE = 'Basic realm="llm-scheduler admin", charset="UTF-8"';

/**
 * Parses `API_KEYS`: comma-separated `key:tenant:priority` triples, for example
 * `sk-chat-1:chat-app:interactive,sk-etl-2:etl:batch`. A malformed entry is named by its position,
 * never by any part of its key.
 */
export function parseKeys(text: string | undefined): Map<string, KeyEntry> {
  const keys = new Map<string, KeyEntry>();
  const items = (text ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  for (const [index, item] of items.entries()) {
    const [key, tenant, priority, extra] = item.split(":").map((part) => part.trim());
    if (!key || !tenant || !priority || extra !== undefined) {
      throw new TypeError(`Expected \`API_KEYS\` entry ${index + 1} as key:tenant:priority`);
    }
    keys.set(key, { tenant, priority });
  }
  return keys;
}

/** A new random key (128 bits), for a gateway started without one. */
export function newKey(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return prefix + [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

const hex = (bytes: Uint8Array): string => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

/** Compares two digests in time that depends only on their length. */
function sameDigest(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}

const bearerOf = (authorization: string | null | undefined): string | undefined =>
  /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];

/** The password of a `Basic` authorization (what a browser sends after `ADMIN_CHALLENGE`). */
function basicPasswordOf(authorization: string | null | undefined): string | undefined {
  const encoded = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? "")?.[1];
  if (encoded === undefined) return undefined;
  try {
    const decoded = atob(encoded);
    const colon = decoded.indexOf(":");
    return colon < 0 ? undefined : decoded.slice(colon + 1);
  } catch {
    return undefined;
  }
}

/** How the gateway treats callers. */
export interface AccessOptions {
  readonly keys: ReadonlyMap<string, KeyEntry>;
  readonly adminKey: string;
  /** `"anonymous"` pools every unknown bearer key into the tenant {@link ANONYMOUS}; `"refuse"` answers 401. */
  readonly unknownKeys: "refuse" | "anonymous";
  /** The priority of the `anonymous` pool. */
  readonly anonymousPriority: string;
}

/**
 * Identifies callers. Keys are looked up by their SHA-256, and the admin key is compared digest to
 * digest in constant time, so the time an answer takes says nothing about how much of a key a guess got
 * right. A tenant is always a configured name (or `anonymous`), never anything derived from a key.
 *
 * @example
 * const access = new Access({ keys, adminKey, unknownKeys: "refuse", anonymousPriority: "interactive" });
 * const who = await access.caller(request.headers.get("authorization")); // KeyEntry, or why not
 */
export class Access {
  readonly #options: AccessOptions;
  #table: Promise<Map<string, KeyEntry>> | undefined;
  #admin: Promise<Uint8Array> | undefined;

  constructor(options: AccessOptions) {
    this.#options = options;
  }

  #byDigest(): Promise<Map<string, KeyEntry>> {
    this.#table ??= Promise.all(
      [...this.#options.keys].map(async ([key, entry]) => [hex(await sha256(key)), entry] as const),
    ).then((pairs) => new Map(pairs));
    return this.#table;
  }

  /** The caller of a generation route: its key's entry, the `anonymous` pool, or why it is refused. */
  async caller(authorization: string | null | undefined): Promise<KeyEntry | string> {
    const key = bearerOf(authorization);
    if (key === undefined) return "Missing API key (Authorization: Bearer <key>)";
    const entry = (await this.#byDigest()).get(hex(await sha256(key)));
    if (entry !== undefined) return entry;
    if (this.#options.unknownKeys === "anonymous") {
      return { tenant: ANONYMOUS, priority: this.#options.anonymousPriority };
    }
    return "Unknown API key";
  }

  /**
   * Who owns batches and files: a configured tenant only. The `anonymous` pool owns nothing (its callers
   * would see each other's files), so it gets `undefined`, which the batch routes answer with 401.
   */
  async owner(authorization: string | null | undefined): Promise<string | undefined> {
    const key = bearerOf(authorization);
    if (key === undefined) return undefined;
    return (await this.#byDigest()).get(hex(await sha256(key)))?.tenant;
  }

  /** True for the admin key, sent as `Authorization: Bearer <key>` or as a Basic password. */
  async admin(authorization: string | null | undefined): Promise<boolean> {
    const given = bearerOf(authorization) ?? basicPasswordOf(authorization);
    if (given === undefined) return false;
    this.#admin ??= sha256(this.#options.adminKey);
    return sameDigest(await sha256(given), await this.#admin);
  }
}

/**
 * True for the paths only the admin key opens: `/metrics`, `/metrics.json`, `/dashboard` and below.
 * Case-insensitive, with or without a trailing slash, so no spelling a router accepts slips past.
 */
export function isAdminPath(path: string): boolean {
  const lower = path.toLowerCase().replace(/\/+$/, "");
  return lower === "/metrics" || lower === "/metrics.json" || lower.startsWith("/dashboard");
}

/** An OpenAI-style error body, as the official clients expect it. */
export function errorBody(message: string, type: string, code: string): string {
  return JSON.stringify({ error: { message, type, code, param: null } });
}

/** Why a generation request's body is refused before it is read, or undefined when it may be read. */
export interface BodyRefusal {
  readonly status: 411 | 413;
  readonly message: string;
  readonly code: string;
}

/**
 * Checks a request's declared body before anything reads it: a body must declare its length
 * (`content-length`, which Node's parser then holds it to) and stay within `maxBodyBytes`.
 */
export function bodyRefusal(
  contentLength: string | null | undefined,
  transferEncoding: string | null | undefined,
  maxBodyBytes: number,
): BodyRefusal | undefined {
  if (contentLength === null || contentLength === undefined || contentLength === "") {
    if (transferEncoding === null || transferEncoding === undefined) return undefined; // no body
    const message = "A request body must declare its length (Content-Length)";
    return { status: 411, message, code: "length_required" };
  }
  const bytes = /^\d+$/.test(contentLength.trim()) ? Number(contentLength) : Number.NaN;
  if (!(bytes <= maxBodyBytes)) {
    const message = `The request body is larger than the ${maxBodyBytes} bytes this gateway accepts`;
    return { status: 413, message, code: "request_too_large" };
  }
  return undefined;
}
