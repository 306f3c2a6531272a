import type { BatchStore } from "@llm-scheduler/batches";
import type { Store } from "@llm-scheduler/core/kit";
import type { ReplicaLedger } from "@llm-scheduler/pool";
import { Hono } from "hono";
import type { AccessLog } from "./access-log.js";
import { KeyTable } from "./auth.js";
import { gatewayBatches } from "./batches.js";
import type { ResolvedModel } from "./config/models-config.js";
import type { ResolvedConfig } from "./config/resolve.js";
import { Dashboards } from "./dashboards.js";
import { inferenceRoute } from "./inference.js";
import { GatewayMetrics } from "./metrics.js";
import { type GatewayVariables, ModelRuntime } from "./model.js";
import { openaiError } from "./respond.js";

/** Where the gateway reports; the bin gives pino's logger. Every message is free of credentials and prompts. */
export interface GatewayLog {
  /** One line per proxied request. */
  readonly access?: AccessLog;
  readonly warn?: (message: string) => void;
  readonly error?: (message: string, error?: unknown) => void;
}

/** Options of {@link createGateway} beyond the configuration: the run time's pieces. */
export interface GatewayOptions {
  readonly log?: GatewayLog;
  /** The scheduler store of a model (e.g. a `RedisStore` for one limit across instances). @default memory */
  readonly storeFor?: (model: string) => Store | undefined;
  /** Where batches and files live. @default memory */
  readonly batchStore?: BatchStore;
  /**
   * The replica ledger of a model's pool shared with the other instances (`redisReplicaLedger`), so
   * that N gateways never put more than a replica's limit on it. @default none: each counts alone
   */
  readonly ledgerFor?: (model: string) => ReplicaLedger | undefined;
}

/** The gateway: a Hono app (`fetch`) with its life cycle. */
export type Gateway = Hono<{ Variables: GatewayVariables }> & {
  /** Applies a new configuration without dropping a request; throws `ConfigError` (and keeps the old one) when it cannot. */
  reload(config: ResolvedConfig): Promise<void>;
  /** Stops accepting (503), lets running requests finish up to `timeoutMs`, gives batch items back, stops timers. */
  close(timeoutMs?: number): Promise<void>;
  /** The models with no healthy replica now (empty: ready). */
  notReady(): readonly string[];
  /** The configuration in force. */
  readonly config: () => ResolvedConfig;
  /** The models at run time: `.get(name)!.scheduler` is a model's scheduler (its events, metrics, a dashboard of one's own). */
  readonly models: () => ReadonlyMap<string, ModelRuntime>;
};

/** The ceiling of each tenant: the least urgent priority among its keys (keys are checked per model). */
function ceilings(config: ResolvedConfig): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  for (const key of config.keys) if (!out.has(key.tenant)) out.set(key.tenant, key.priority);
  return out;
}

/**
 * The gateway as a web-standard Hono app, from a configuration checked by `parseConfig()` or
 * `resolveConfig()`: OpenAI's routes proxied through each model's scheduler (who goes next) and pool of
 * replicas (where it goes), Files and Batches, the models list, `/metrics` and `/dashboard` for the
 * admin key, `/healthz` and `/readyz` (every model has a healthy replica). Runs on Node
 * (`@hono/node-server`, what the bin does), Bun, Deno, or inside another app.
 *
 * @example
 * const gateway = createGateway(await resolveConfig({ auth: "none", models: { m: { upstreams: ["http://127.0.0.1:8000"] } } }));
 * export default gateway; // Bun, Deno: { fetch }
 */
export function createGateway(initial: ResolvedConfig, options: GatewayOptions = {}): Gateway {
  const log = options.log ?? {};
  let config = initial;
  let keys = new KeyTable(config.keys, config.auth, config.admin);
  let tenantCeilings = ceilings(config);
  const models = new Map<string, ModelRuntime>();
  const onHealth = (model: string, change: { id: string; healthy: boolean; capacity: number }) => {
    const what = change.healthy ? "is back" : "is ejected (it failed); it is probed again later";
    log.warn?.(`model ${model}: replica ${change.id} ${what}; the model's limit is ${change.capacity} now`);
  };
  const runtime = (section: ResolvedModel) =>
    new ModelRuntime(section, {
      store: options.storeFor?.(section.name),
      ledger: options.ledgerFor?.(section.name),
      onHealth,
    });
  for (const [, model] of config.models) models.set(model.name, runtime(model));
  let draining = false;
  const onError = (error: unknown) => log.error?.("batch layer error", error);
  const { batches, dispatch } = gatewayBatches(
    config,
    { keys: () => keys, models: () => models, ceilingOf: (t) => tenantCeilings.get(t), onError },
    options.batchStore,
  );
  const metrics = new GatewayMetrics(batches);
  metrics.follow(models);
  const isAdmin = (request: Request) => keys.isAdmin(request);
  const dashboards = new Dashboards(batches, isAdmin);
  dashboards.follow(models);
  const notReady = () => [...models].filter(([, model]) => !model.ready).map(([name]) => name);

  const app = new Hono<{ Variables: GatewayVariables }>();
  const deps = {
    keys: () => keys,
    models: () => models,
    maxBodyBytes: () => config.maxBodyBytes,
    log: log.access,
  };
  app.use("*", async (c, next) => {
    if (draining && c.req.path !== "/healthz") {
      return openaiError(503, "The gateway is shutting down.", "shutting_down", null, { "retry-after": "1" });
    }
    await next();
  });
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", (c) => {
    const waiting = notReady();
    const ejected: Record<string, string[]> = {};
    for (const [name, model] of models) {
      const ids = model.ejected();
      if (ids.length > 0) ejected[name] = ids;
    }
    return c.json({ ready: waiting.length === 0, waiting, ejected }, waiting.length === 0 ? 200 : 503);
  });
  app.get("/v1/models", async (c) => {
    if ((await keys.caller(c.req.raw)) === undefined)
      return openaiError(401, "Incorrect or missing API key.", "invalid_api_key");
    const data = [...models.keys()].map((id) => ({
      id,
      object: "model",
      created: 0,
      owned_by: "llm-scheduler-gateway",
    }));
    return c.json({ object: "list", data });
  });
  app.post("/v1/chat/completions", inferenceRoute(deps, "/chat/completions"));
  app.post("/v1/completions", inferenceRoute(deps, "/completions"));
  app.post("/v1/embeddings", inferenceRoute(deps, "/embeddings"));
  const serveBatches = (c: { req: { raw: Request } }) => batches.fetch(c.req.raw);
  app.all("/v1/files", serveBatches).all("/v1/files/*", serveBatches);
  app.all("/v1/batches", serveBatches).all("/v1/batches/*", serveBatches);
  const admin = async (request: Request): Promise<Response | undefined> => {
    if (await isAdmin(request)) return undefined;
    if (request.headers.get("authorization") === null)
      return openaiError(401, "The admin key is required.", "invalid_api_key");
    return openaiError(403, "This key may not read the gateway's metrics or dashboard.", "forbidden");
  };
  app.get("/metrics", async (c) => {
    const refused = await admin(c.req.raw);
    if (refused !== undefined) return refused;
    return c.body(await metrics.text(), 200, { "content-type": metrics.contentType });
  });
  app.all("/dashboard", (c) => dashboards.serve(c.req.raw));
  app.all("/dashboard/*", (c) => dashboards.serve(c.req.raw));
  app.notFound((c) =>
    openaiError(404, `Unknown route: ${c.req.method} ${c.req.path.slice(0, 200)}`, "unknown_url"),
  );
  app.onError((error) => {
    log.error?.("unexpected error", error);
    return openaiError(500, "The server had an error while processing your request.", "internal_error");
  });

  async function reload(next: ResolvedConfig): Promise<void> {
    for (const [name, model] of next.models) models.get(name)?.check(next.models.get(name) ?? model);
    const restart = (["listen", "batches", "redis"] as const).filter(
      (k) => JSON.stringify(next[k]) !== JSON.stringify(config[k]),
    );
    if (restart.length > 0)
      log.warn?.(`${restart.join(", ")}: changed in the file; applied at the next restart`);
    const settled: Promise<void>[] = [];
    for (const [name, model] of models) {
      const section = next.models.get(name);
      if (section === undefined) {
        models.delete(name);
        settled.push(model.close(next.drainTimeoutMs));
      } else settled.push(model.apply(section, next.drainTimeoutMs));
    }
    for (const [name, section] of next.models) {
      if (!models.has(name)) models.set(name, runtime(section));
    }
    keys = new KeyTable(next.keys, next.auth, next.admin);
    tenantCeilings = ceilings(next);
    config = { ...next, listen: config.listen, batches: config.batches, redis: config.redis };
    metrics.follow(models);
    dashboards.follow(models);
    await Promise.all(settled);
  }

  async function close(timeoutMs = config.drainTimeoutMs): Promise<void> {
    draining = true;
    await Promise.all([...models.values()].map((m) => m.close(timeoutMs)));
    await batches.close();
    await dispatch.close();
    metrics.close();
    dashboards.close();
  }

  return Object.assign(app, {
    reload,
    close,
    notReady,
    config: () => config,
    models: () => models,
  });
}
