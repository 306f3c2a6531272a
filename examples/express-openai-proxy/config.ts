// Configuration from the environment, checked once at start-up.

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
      throw new TypeError(`Expected \`API_KEYS\` entries as key:tenant:priority, got \`${item}\``);
    }
    keys.set(key, { tenant, priority });
  }
  return keys;
}

function integer(name: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) {
    throw new TypeError(`Expected \`${name}\` to be an integer >= ${min}, got \`${text}\``);
  }
  return value;
}

/** Reads the configuration from `env` (usually `process.env`). */
export function configFrom(env: NodeJS.ProcessEnv): ProxyConfig {
  const upstreamUrl = (env.UPSTREAM_URL ?? "http://127.0.0.1:8000").replace(/\/+$/, "");
  if (!/^https?:\/\//.test(upstreamUrl)) {
    throw new TypeError(`Expected \`UPSTREAM_URL\` to be an http(s) URL, got \`${upstreamUrl}\``);
  }
  return {
    upstreamUrl,
    upstreamKey: env.UPSTREAM_API_KEY || undefined,
    host: env.HOST ?? "127.0.0.1",
    port: integer("PORT", env.PORT, 3000, 0),
    maxConcurrency: integer("MAX_CONCURRENCY", env.MAX_CONCURRENCY, 8, 1),
    keys: parseKeys(env.API_KEYS),
  };
}
