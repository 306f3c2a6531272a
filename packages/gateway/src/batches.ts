import {
  type BatchStore,
  createBatches,
  type ExecuteContext,
  type ExecuteResult,
  type ServedBatches,
} from "@llm-scheduler/batches";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { lowerOnlyPriority } from "@llm-scheduler/core/kit";
import type { KeyTable } from "./auth.js";
import type { ResolvedConfig } from "./config/resolve.js";
import type { ModelRuntime } from "./model.js";
import { forward } from "./proxy.js";

/** What the batch items read from the gateway, each time (a reload swaps them). */
export interface BatchDeps {
  keys(): KeyTable;
  models(): ReadonlyMap<string, ModelRuntime>;
  /** The ceiling of a tenant's keys (`undefined`: none), for its batch items. */
  ceilingOf(tenant: string): string | undefined;
  readonly onError: (error: unknown) => void;
}

/** A batch's tenant and priority, read once per batch from the store. */
type Owner = { readonly tenant: string; readonly priority: string };

/**
 * The Files and Batches API of the gateway. The batch layer runs items through a dispatch scheduler of
 * its own (`maxInFlight` slots, one priority), and each item then takes its slot in its `model`'s
 * scheduler like any request: at the batch's priority (capped by the key's), as the batch's tenant, on
 * the replica of that model's pool the router picks. An unknown model is a final 404 for that item.
 *
 * @example
 * const batches = gatewayBatches(config, deps, store);
 * app.all("/v1/files/*", (c) => batches.fetch(c.req.raw));
 */
export function gatewayBatches(
  config: ResolvedConfig,
  deps: BatchDeps,
  store?: BatchStore,
): {
  batches: ServedBatches;
  dispatch: Scheduler;
} {
  const { maxInFlight, priority } = config.batches;
  const dispatch = createScheduler({
    maxConcurrency: maxInFlight,
    priorities: {
      [priority]: { maxQueue: Number.POSITIVE_INFINITY, queueTimeoutMs: Number.POSITIVE_INFINITY },
    },
  });
  const owners = new Map<string, Owner>();
  async function ownerOf(batchId: string): Promise<Owner | undefined> {
    const known = owners.get(batchId);
    if (known !== undefined) return known;
    const batch = await batches.get(batchId);
    if (batch === undefined) return undefined;
    const owner = { tenant: batch.tenant, priority: batch.priority };
    if (owners.size > 10_000) owners.clear();
    owners.set(batchId, owner);
    return owner;
  }
  async function execute({ item, batchId, signal }: ExecuteContext): Promise<ExecuteResult> {
    const body = item.body as Record<string, unknown> | null;
    const model = typeof body?.model === "string" ? deps.models().get(body.model) : undefined;
    if (model === undefined || body === null) {
      const error = {
        message: "The model does not exist.",
        type: "invalid_request_error",
        param: "model",
        code: "model_not_found",
      };
      return { status: 404, body: { error } };
    }
    const owner = await ownerOf(batchId);
    if (owner === undefined)
      return { status: 404, body: { error: { message: "The batch is gone.", code: "batch_not_found" } } };
    const options = model.scheduler.options;
    const ceiling = deps.ceilingOf(owner.tenant) ?? options.defaultPriority;
    const wanted = options.priorityByName.has(owner.priority) ? owner.priority : undefined;
    const runAs = lowerOnlyPriority(options, wanted, ceiling);
    const id = `${batchId}:${item.index}`;
    const permit = await model.scheduler.acquire({ priority: runAs, tenant: owner.tenant, signal, id });
    try {
      const outgoing = { ...body, model: model.config.upstreamModel, stream: false };
      const answer = await forward({
        pool: model.pool,
        permit,
        path: item.url.replace(/^\/v1/, ""),
        body: JSON.stringify(outgoing),
        apiKey: model.config.upstreamApiKey,
        requestId: id,
        done: () => undefined,
      });
      const text = await answer.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status: answer.status, body: parsed };
    } finally {
      permit.release();
    }
  }
  const batches = createBatches({
    scheduler: dispatch,
    execute,
    maxInFlight,
    httpPriority: priority,
    tenant: async (request) => (await deps.keys().caller(request))?.tenant,
    onError: deps.onError,
    ...(store === undefined ? {} : { store }),
  });
  return { batches, dispatch };
}
