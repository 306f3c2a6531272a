// A gateway's configuration from the environment, checked once at start-up: the variables the Express,
// Koa and Hono example gateways read. Web standards only (no Node types), so the same file serves a
// gateway on Node, Bun, Deno or Workers.

import type { Scheduler } from "@llm-scheduler/core";
import { Access, ANONYMOUS, type KeyEntry, newKey, parseKeys } from "./access.js";

/** A tenant's caps (over all priorities); an absent field is no cap. */
export interface TenantCaps {
  readonly maxConcurrency?: number;
  readonly tokensPerMinute?: number;
  readonly burstTokens?: number;
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
  /** Known API keys (`API_KEYS`); any other key gets 401, unless `unknownKeys` pools it. */
  readonly keys: ReadonlyMap<string, KeyEntry>;
  /** The key that opens `/metrics`, `/metrics.json` and `/dashboard` (`ADMIN_KEY`). */
  readonly adminKey: string;
  /** `UNKNOWN_KEYS`: `"refuse"` (401), or `"anonymous"`: every unknown key shares the tenant `anonymous`. */
  readonly unknownKeys: "refuse" | "anonymous";
  /** Caps of every configured tenant (`TENANT_*`). */
  readonly tenantCaps: TenantCaps;
  /** Caps of the `anonymous` pool (`ANONYMOUS_*`), used with `unknownKeys: "anonymous"`. */
  readonly anonymousCaps: TenantCaps;
  /** Output tokens charged up front for a request that names no `max_tokens` (`DEFAULT_MAX_TOKENS`). */
  readonly defaultMaxTokens: number;
  /** The largest request body accepted on the generation routes (`MAX_BODY_BYTES`). */
  readonly maxBodyBytes: number;
  /** Keys made up at start because none were configured, to print once; absent when configured. */
  readonly generated?: { readonly apiKey?: string; readonly adminKey?: string };
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

function optional(name: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  return integer(name, text, 0, min, max);
}

/** The caps `prefix`_MAX_CONCURRENCY, _TOKENS_PER_MINUTE and _BURST_TOKENS give. */
function capsFrom(env: Env, prefix: string, defaults: TenantCaps): TenantCaps {
  const caps = {
    maxConcurrency: optional(`${prefix}_MAX_CONCURRENCY`, env[`${prefix}_MAX_CONCURRENCY`], 1, 1_000_000),
    tokensPerMinute: optional(`${prefix}_TOKENS_PER_MINUTE`, env[`${prefix}_TOKENS_PER_MINUTE`], 1, 1e12),
    burstTokens: optional(`${prefix}_BURST_TOKENS`, env[`${prefix}_BURST_TOKENS`], 1, 1e12),
  };
  const given = Object.entries(caps).filter(([, value]) => value !== undefined);
  return { ...defaults, ...Object.fromEntries(given) } as TenantCaps; // what is set, over the defaults
}

function unknownKeysFrom(text: string | undefined): "refuse" | "anonymous" {
  const value = (text ?? "").trim() || "refuse";
  if (value !== "refuse" && value !== "anonymous") {
    throw new TypeError(
      `Expected \`UNKNOWN_KEYS\` to be \`refuse\` or \`anonymous\`, got \`${value.slice(0, 40)}\``,
    );
  }
  return value;
}

/**
 * The key table, the admin key and the treatment of unknown keys. Without `API_KEYS` (and with unknown
 * keys refused) a demo key is made for this run, and without `ADMIN_KEY` an admin key: the gateway still
 * starts for a first try, closed to everyone else, and says so.
 */
function accessFrom(env: Env) {
  const unknownKeys = unknownKeysFrom(env.UNKNOWN_KEYS);
  const keys = parseKeys(env.API_KEYS);
  if (unknownKeys === "anonymous" && [...keys.values()].some((entry) => entry.tenant === ANONYMOUS)) {
    throw new TypeError(`Expected no \`API_KEYS\` tenant named \`${ANONYMOUS}\` (the pool of unknown keys)`);
  }
  const generated: { apiKey?: string; adminKey?: string } = {};
  if (keys.size === 0 && unknownKeys === "refuse") {
    generated.apiKey = newKey("sk-demo-");
    keys.set(generated.apiKey, { tenant: "demo", priority: "interactive" });
  }
  let adminKey = env.ADMIN_KEY?.trim() ?? "";
  if (adminKey === "") {
    adminKey = newKey("sk-admin-");
    generated.adminKey = adminKey;
  }
  if (adminKey.length < 16) {
    throw new TypeError("Expected `ADMIN_KEY` to be at least 16 characters long");
  }
  const made = generated.apiKey !== undefined || generated.adminKey !== undefined;
  return { keys, adminKey, unknownKeys, ...(made ? { generated } : {}) };
}

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
    ...accessFrom(env),
    tenantCaps: capsFrom(env, "TENANT", {}),
    anonymousCaps: capsFrom(env, "ANONYMOUS", { maxConcurrency: 1, tokensPerMinute: 20_000 }),
    defaultMaxTokens: integer("DEFAULT_MAX_TOKENS", env.DEFAULT_MAX_TOKENS, 1_024, 0, 1_000_000),
    maxBodyBytes: integer("MAX_BODY_BYTES", env.MAX_BODY_BYTES, 8_388_608, 1_024, 1_073_741_824),
  };
}

/**
 * The scheduler's options for `config`: the concurrency limit, the caps of every tenant, and the
 * `anonymous` pool's own caps when unknown keys are pooled.
 */
export function schedulerOptionsOf(config: ProxyConfig) {
  return {
    maxConcurrency: config.maxConcurrency,
    tenantDefaults: config.tenantCaps,
    ...(config.unknownKeys === "anonymous" ? { tenants: { [ANONYMOUS]: config.anonymousCaps } } : {}),
  };
}

/**
 * The one {@link Access} of a configuration for `scheduler`: unknown keys pooled at the scheduler's default
 * priority. Throws a `TypeError` for a key whose priority the scheduler does not know, naming its tenant,
 * never the key.
 */
export function accessFor(config: ProxyConfig, scheduler: Scheduler): Access {
  for (const entry of config.keys.values()) {
    if (!scheduler.options.priorityByName.has(entry.priority)) {
      throw new TypeError(
        `API key of tenant \`${entry.tenant}\` asks for an unknown priority \`${entry.priority}\``,
      );
    }
  }
  return new Access({ ...config, anonymousPriority: scheduler.options.defaultPriority });
}

/** What to print at start about keys made up for this run and about an open gateway; nothing otherwise. */
export function generatedKeyLines(config: ProxyConfig): string[] {
  const lines: string[] = [];
  const { apiKey, adminKey } = config.generated ?? {};
  if (apiKey !== undefined) {
    lines.push(`No API_KEYS set: demo key for this run (tenant \`demo\`): ${apiKey}`);
    lines.push("  set API_KEYS=key:tenant:priority,... for your own keys; any other key gets 401");
  }
  if (adminKey !== undefined) {
    lines.push(`No ADMIN_KEY set: admin key for /metrics, /metrics.json, /dashboard this run: ${adminKey}`);
    lines.push("  send it as Authorization: Bearer <key>; a browser asks for it as the password");
  }
  if (config.unknownKeys === "anonymous") {
    const caps = Object.entries(config.anonymousCaps).map(([name, value]) => `${name} ${value}`);
    lines.push(`UNKNOWN_KEYS=anonymous: unknown keys share the tenant \`anonymous\` (${caps.join(", ")})`);
  }
  return lines;
}
