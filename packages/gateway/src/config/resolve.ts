import { optionsFromJson } from "@llm-scheduler/core";
import { ConfigError } from "./errors.js";
import { interpolate } from "./interpolate.js";
import { digestOf, type ResolvedKey, resolveKeys } from "./keys-config.js";
import { type ResolvedModel, resolveModel } from "./models-config.js";
import { parseText } from "./parse.js";
import { GATEWAY_NODE, type GatewayConfig } from "./schema.js";

/** A configuration the gateway can serve: checked, defaults filled in, keys as digests. */
export interface ResolvedConfig {
  readonly listen: { readonly host: string; readonly port: number };
  readonly models: ReadonlyMap<string, ResolvedModel>;
  readonly auth: "keys" | "none";
  readonly keys: readonly ResolvedKey[];
  /** The admin key's SHA-256; `undefined`: nobody is admin. */
  readonly admin: string | undefined;
  readonly batches: {
    readonly store: "memory" | "redis";
    readonly priority: string;
    readonly maxInFlight: number;
  };
  readonly redis: { readonly url: string; readonly prefix: string } | undefined;
  readonly drainTimeoutMs: number;
  readonly maxBodyBytes: number;
  readonly probeIntervalMs: number;
  readonly log: { readonly level: string; readonly access: boolean };
}

/** Every `"Infinity"` of a model's scheduler options (and a key's quotas) as the number, as JSON cannot hold it. */
function infinities(tree: Record<string, unknown>): Record<string, unknown> {
  const out = { ...tree };
  if (out.models !== null && typeof out.models === "object") {
    const models: Record<string, unknown> = {};
    for (const [name, model] of Object.entries(out.models as object)) {
      Object.defineProperty(models, name, {
        value: optionsFromJson(model),
        enumerable: true,
        configurable: true,
        writable: true,
      });
    }
    out.models = models;
  }
  if (Array.isArray(out.keys)) {
    out.keys = out.keys.map((key: unknown) => optionsFromJson({ tenantDefaults: key }).tenantDefaults ?? key);
  }
  return out;
}

/** The checked tree: the library's checks (paths, did-you-mean) as one-line {@link ConfigError}s. */
function checked(tree: unknown): GatewayConfig {
  try {
    return GATEWAY_NODE.check("", infinities(tree as Record<string, unknown>));
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

/**
 * Checks a configuration object (as parsed from the file, before or after `${VAR}` interpolation) and
 * resolves it. Throws {@link ConfigError}, one line naming the path.
 *
 * @example
 * const config = await resolveConfig({ models: { m: { upstreams: ["http://127.0.0.1:8000"] } }, auth: "none" });
 */
export async function resolveConfig(
  tree: unknown,
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<ResolvedConfig> {
  const given = checked(interpolate(tree, env));
  const auth = given.auth ?? "keys";
  if (given.models === undefined || Object.keys(given.models).length === 0) {
    throw new ConfigError("models: required (one model at least)");
  }
  if (auth === "keys" && (given.keys === undefined || given.keys.length === 0)) {
    throw new ConfigError(
      "keys: required (one key at least), or `auth: none` to serve every caller, on purpose",
    );
  }
  if (auth === "none" && given.keys !== undefined && given.keys.length > 0) {
    throw new ConfigError("keys: given with `auth: none`, which would ignore them; remove one or the other");
  }
  const { keys, tenants } = await resolveKeys(given.keys ?? []);
  const models = new Map<string, ResolvedModel>();
  const probeIntervalMs = given.probeIntervalMs ?? 5_000;
  for (const [name, model] of Object.entries(given.models))
    models.set(name, resolveModel(name, model, keys, tenants, probeIntervalMs));
  const batchStore = given.batches?.store ?? "memory";
  if ((batchStore === "redis" || given.redis !== undefined) && given.redis?.url === undefined) {
    throw new ConfigError("redis.url: required with a Redis store");
  }
  return {
    listen: { host: given.listen?.host ?? "127.0.0.1", port: given.listen?.port ?? 8080 },
    models,
    auth,
    keys,
    admin: given.admin === undefined ? undefined : await digestOf("admin", given.admin),
    batches: {
      store: batchStore,
      priority: given.batches?.priority ?? "batch",
      maxInFlight: given.batches?.maxInFlight ?? 64,
    },
    redis:
      given.redis?.url === undefined
        ? undefined
        : { url: given.redis.url, prefix: given.redis.prefix ?? "llm-gateway" },
    drainTimeoutMs: given.drainTimeoutMs ?? 30_000,
    maxBodyBytes: given.maxBodyBytes ?? 16_777_216,
    probeIntervalMs,
    log: { level: given.log?.level ?? "info", access: given.log?.access ?? true },
  };
}

/**
 * A configuration file's text (YAML or JSON) resolved: parsed, `${VAR}` taken from `env`, checked.
 *
 * @example
 * const config = await parseConfig(readFileSync("gateway.yaml", "utf8"), process.env);
 */
export async function parseConfig(
  text: string,
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<ResolvedConfig> {
  return resolveConfig(parseText(text), env);
}

export { ConfigError };
