import { errorResponseFor, isSchedulerError, type SchedulerUpdate } from "@llm-scheduler/core";
import { rejectUnknownKeys } from "@llm-scheduler/core/kit";
import { batchView } from "./batches.js";
import type { ResolvedDashboardOptions } from "./options.js";
import { badRequest, json, openaiError } from "./respond.js";

const MAX_BODY_BYTES = 8_192;
const MAX_LIMIT = 100_000;
const MAX_WEIGHT = 1_000_000;

/**
 * Whether `authorize` lets this request use the controls; a throw or anything but `true` is a no.
 *
 * @example
 * if (!(await mayControl(options, request))) return forbidden();
 */
export async function mayControl(options: ResolvedDashboardOptions, request: Request): Promise<boolean> {
  if (options.authorize === undefined) return false;
  try {
    return (await options.authorize(request)) === true;
  } catch {
    return false;
  }
}

async function readBody(request: Request): Promise<{ value: unknown } | Response> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    // A cross-site form cannot send this type without a preflight, so requiring it stops CSRF.
    const message = "Controls take a JSON body: send `content-type: application/json`";
    return openaiError(415, { message, type: "invalid_request_error", code: "unsupported_media_type" });
  }
  const reader = request.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (reader !== undefined) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      const message = `The body is larger than ${MAX_BODY_BYTES} bytes`;
      return openaiError(413, { message, type: "invalid_request_error", code: "body_too_large" });
    }
    chunks.push(value);
  }
  const text = new TextDecoder().decode(concat(chunks, size));
  if (text.trim() === "") return { value: {} };
  try {
    return { value: JSON.parse(text) };
  } catch {
    return badRequest("The body is not valid JSON", null, "invalid_json");
  }
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Checks `{ maxConcurrency?, weights? }` and turns it into a scheduler update, or a 400. */
function limitsUpdate(options: ResolvedDashboardOptions, body: unknown): SchedulerUpdate | Response {
  if (!isRecord(body)) return badRequest("Expected a JSON object", null);
  try {
    rejectUnknownKeys("", body, ["maxConcurrency", "weights"]);
  } catch (error) {
    return badRequest((error as Error).message, null, "unknown_parameter");
  }
  const { maxConcurrency, weights } = body;
  if (maxConcurrency === undefined && weights === undefined) {
    return badRequest("Give `maxConcurrency`, `weights` or both", null, "missing_parameter");
  }
  if (maxConcurrency !== undefined) {
    const ok = typeof maxConcurrency === "number" && Number.isInteger(maxConcurrency);
    if (!ok || maxConcurrency < 1 || maxConcurrency > MAX_LIMIT) {
      return badRequest(`\`maxConcurrency\` must be an integer from 1 to ${MAX_LIMIT}`, "maxConcurrency");
    }
  }
  const priorities: Record<string, { weight: number }> = {};
  if (weights !== undefined) {
    if (!isRecord(weights)) return badRequest("`weights` must be an object of numbers", "weights");
    const known = options.scheduler.options.priorities.map((priority) => priority.name);
    for (const [name, weight] of Object.entries(weights)) {
      if (!known.includes(name)) return badRequest("Unknown priority in `weights`", `weights.${name}`);
      if (typeof weight !== "number" || !(weight > 0) || weight > MAX_WEIGHT) {
        return badRequest(`A weight must be a number above 0, at most ${MAX_WEIGHT}`, `weights.${name}`);
      }
      priorities[name] = { weight };
    }
  }
  return {
    ...(maxConcurrency === undefined ? {} : { maxConcurrency: maxConcurrency as number }),
    ...(weights === undefined ? {} : { priorities }),
  };
}

/**
 * `POST path/api/limits` with `{ maxConcurrency?, weights?: { [priority]: number } }`: changes them
 * live through `scheduler.update()`; answers the new limit and weights.
 *
 * @example
 * await fetch("/dashboard/api/limits", { method: "POST", headers: { "content-type": "application/json" }, body: '{"maxConcurrency":12}' });
 */
export async function postLimits(options: ResolvedDashboardOptions, request: Request): Promise<Response> {
  const body = await readBody(request);
  if (body instanceof Response) return body;
  const update = limitsUpdate(options, body.value);
  if (update instanceof Response) return update;
  try {
    await options.scheduler.update(update);
  } catch (error) {
    if (!isSchedulerError(error)) return openaiError(500, errorResponseFor(error).body.error);
    const { status, body: failure } = errorResponseFor(error);
    return openaiError(status, { ...failure.error, param: null });
  }
  const resolved = options.scheduler.options;
  const weights = Object.fromEntries(resolved.priorities.map((p) => [p.name, p.weight]));
  return json(200, { maxConcurrency: resolved.maxConcurrency, weights });
}

/**
 * `POST path/api/batches/:id/cancel` or `.../retry`: cancels a batch or retries its failed items.
 *
 * @example
 * await fetch("/dashboard/api/batches/batch_1/cancel", { method: "POST", headers: { "content-type": "application/json" } });
 */
export async function postBatchAction(
  options: ResolvedDashboardOptions,
  request: Request,
  id: string,
  action: "cancel" | "retry",
): Promise<Response> {
  const batches = options.batches;
  if (batches === undefined) return openaiError(404, notFound("No batches are shown here"));
  const body = await readBody(request);
  if (body instanceof Response) return body;
  const found = batchView(await Promise.resolve(batches.get(id)).catch(() => undefined));
  if (found === undefined) return openaiError(404, notFound("No such batch", "id"));
  try {
    await (action === "cancel" ? batches.cancel(id) : batches.retryFailed(id));
  } catch {
    const message = `The batch could not be ${action === "cancel" ? "cancelled" : "retried"} in its state`;
    return openaiError(409, { message, type: "invalid_request_error", code: "batch_conflict", param: "id" });
  }
  return json(200, { batch: batchView(await Promise.resolve(batches.get(id)).catch(() => found)) ?? found });
}

function notFound(message: string, param: string | null = null) {
  return { message, type: "invalid_request_error", code: "not_found", param };
}
