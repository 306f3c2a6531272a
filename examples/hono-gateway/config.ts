// Configuration from the environment, checked once at start-up. Web standards only (no Node types), so
// the same file serves a gateway on Node, Bun, Deno or Workers.

/** What one API key is allowed to be. */
export interface KeyEntry {
  readonly tenant: string;
  readonly priority: string;
}

export interface ProxyConfig {
  /** The OpenAI-compatible server: vLLM, Ollama, upstream-sim. */
  readonly upstreamUrl: string;
  /** Sent upstream as `Authorization: Bearer`; client keys are never forwarded. */
  readonly upstreamKey: string | undefined;
  readonly host: string;
  readonly port: number;
  /** Requests in flight upstream at once (match vLLM's --max-num-seqs or OLLAMA_NUM_PARALLEL). */
  readonly maxConcurrency: number;
  /** Known API keys; when empty, any bearer key is accepted as its own tenant at the default priority. */
  readonly keys: ReadonlyMap<string, KeyEntry>;
}

/**
 * Parses `API_KEYS`: comma-separated `key:tenant:priority` triples, for example
 * `sk-chat-1:chat-app:interactive,sk-etl-2:etl:batch`.
 */
export function parseKeys(text: string | undefined): Map<string, KeyEntry> {
  const keys = new Map<string, KeyEntry>();
  for (const item of (text ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [key, tenant, priority] = item.split(":").map((part) => part.trim());
    if (!key || !tenant || !priority) {
      const shown = key ? `${key.slice(0, 6)}…` : item.slice(0, 12); // never print a whole key
      throw new TypeError(`Expected each \`API_KEYS\` entry as key:tenant:priority, got \`${shown}\``);
    }
    keys.set(key, { tenant, priority });
  }
  return keys;
}

function integer(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined || text.trim() === "") return fallback;
  const value = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new TypeError(
      `Expected \`${name}\` to be a whole number from ${min} to ${max}, got \`${text.slice(0, 40)}\``,
    );
  }
  return value;
}

/** The environment variables the gateway reads (`process.env` on Node, `env` bindings on Workers). */
export type Env = Readonly<Record<string, string | undefined>>;

/** Reads the configuration from `env`; throws a `TypeError` that names the variable and says what is wrong. */
export function configFrom(env: Env): ProxyConfig {
  const upstreamUrl = (env.UPSTREAM_URL ?? "http://127.0.0.1:8000").replace(/\/+$/, "");
  if (!/^https?:\/\//.test(upstreamUrl)) {
    throw new TypeError(`Expected \`UPSTREAM_URL\` to be an http(s) URL, got \`${upstreamUrl}\``);
  }
  return {
    upstreamUrl,
    upstreamKey: env.UPSTREAM_API_KEY || undefined,
    host: env.HOST ?? "127.0.0.1",
    port: integer("PORT", env.PORT, 3000, 0, 65_535),
    maxConcurrency: integer("MAX_CONCURRENCY", env.MAX_CONCURRENCY, 8, 1, 100_000),
    keys: parseKeys(env.API_KEYS),
  };
}
