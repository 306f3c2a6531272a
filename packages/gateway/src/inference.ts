import type { RequestSlot } from "@llm-scheduler/adapter-kit";
import type { Context } from "hono";
import { type AccessEntry, type AccessLog, ms } from "./access-log.js";
import type { KeyTable } from "./auth.js";
import { jsonObjectOf, readBounded } from "./body.js";
import type { GatewayVariables, ModelRuntime } from "./model.js";
import { outgoingBody } from "./outgoing-body.js";
import { forward } from "./proxy.js";
import { openaiError } from "./respond.js";

/** What the proxied routes read from the gateway, each time (a reload swaps them). */
export interface InferenceDeps {
  keys(): KeyTable;
  models(): ReadonlyMap<string, ModelRuntime>;
  maxBodyBytes(): number;
  readonly log: AccessLog | undefined;
}

type C = Context<{ Variables: GatewayVariables }>;

/**
 * The handler of one proxied route (`/chat/completions`, `/completions`, `/embeddings`): the key says
 * who calls, the body's `model` picks the model, the model's scheduler decides when it goes upstream
 * (through the Hono adapter's middleware, which holds the slot until the answer's last byte) and the
 * model's pool where (a replica the router picks, another one if it fails before its first byte).
 */
export function inferenceRoute(deps: InferenceDeps, path: string) {
  return async function proxyRoute(c: C): Promise<Response> {
    const started = performance.now();
    const request = c.req.raw;
    const line: { -readonly [K in keyof AccessEntry]: AccessEntry[K] } = {
      id: undefined,
      method: request.method,
      path: c.req.path,
      tenant: undefined,
      model: undefined,
      priority: undefined,
      waitMs: undefined,
      ttfbMs: undefined,
      durationMs: 0,
      status: 0,
      outcome: "rejected",
    };
    const log = (response: Response): Response => {
      line.status = response.status;
      line.durationMs = ms(started, performance.now());
      deps.log?.(line);
      return response;
    };
    const caller = await deps.keys().caller(request);
    if (caller === undefined)
      return log(openaiError(401, "Incorrect or missing API key.", "invalid_api_key"));
    line.tenant = caller.tenant;
    const bytes = await readBounded(request, deps.maxBodyBytes());
    if (bytes instanceof Response) return log(bytes);
    const body = jsonObjectOf(bytes);
    if (body instanceof Response) return log(body);
    if (typeof body.model !== "string")
      return log(openaiError(400, "The body names no `model`.", "missing_model", "model"));
    const model = deps.models().get(body.model);
    if (model === undefined) {
      const shown = body.model.slice(0, 128);
      return log(openaiError(404, `The model \`${shown}\` does not exist.`, "model_not_found", "model"));
    }
    line.model = model.config.name;
    c.set("caller", caller);
    c.set("body", body);
    const rejected = await model.middleware(c as unknown as Context, async () => {
      const slot = (c as unknown as Context).get("llmScheduler" as never) as RequestSlot;
      line.id = slot.id;
      line.priority = slot.priority;
      line.waitMs = Math.round(slot.waitMs * 10) / 10;
      c.res = await forward({
        pool: model.pool, // read now: a reload may have made a new one while this request waited
        permit: slot.permit,
        path,
        body: outgoingBody(body, bytes, model.config, slot.priority),
        apiKey: model.config.upstreamApiKey,
        requestId: slot.id,
        done: (timing) => {
          line.outcome = timing.outcome;
          line.status = timing.status;
          line.ttfbMs = timing.firstByteAt === undefined ? undefined : ms(started, timing.firstByteAt);
          line.durationMs = ms(started, performance.now());
          deps.log?.(line);
        },
      });
    });
    if (rejected !== undefined) return log(rejected);
    return c.res;
  };
}
