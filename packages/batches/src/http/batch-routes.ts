import { isSchedulerError } from "@llm-scheduler/core";
import type { Batches } from "../batches.js";
import { BATCH_ENDPOINTS } from "../create-options.js";
import { BatchError } from "../errors.js";
import { sameTenant } from "../same-tenant.js";
import { boundedJson } from "./body.js";
import { batchObject, parseWindow } from "./format.js";
import { LimitError } from "./jsonl.js";
import { json, openaiError } from "./respond.js";

const KNOWN = ["input_file_id", "endpoint", "completion_window", "metadata"];

/** The JSON object of the body, `undefined` when it is not one; a 413 {@link LimitError} past `max`. */
async function bodyOf(request: Request, max: number): Promise<Record<string, unknown> | undefined> {
  const body = await boundedJson(request, max);
  return body !== null && typeof body === "object" && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : undefined;
}

/** The first invalid field of a create request, as an error answer. */
function invalidCreate(body: Record<string, unknown>): Response | undefined {
  const unknown = Object.keys(body).find((key) => !KNOWN.includes(key));
  if (unknown !== undefined)
    return openaiError(400, `Unrecognized request argument supplied: ${unknown.slice(0, 64)}`, {
      param: unknown.slice(0, 64),
    });
  if (typeof body.input_file_id !== "string")
    return openaiError(400, "Missing required parameter: 'input_file_id'.", { param: "input_file_id" });
  if (typeof body.endpoint !== "string" || !BATCH_ENDPOINTS.includes(body.endpoint)) {
    return openaiError(400, `Invalid 'endpoint': expected one of ${BATCH_ENDPOINTS.join(", ")}.`, {
      param: "endpoint",
    });
  }
  if (parseWindow(body.completion_window) === undefined) {
    return openaiError(400, "Invalid 'completion_window': expected hours such as '24h' (or '90m', '30s').", {
      param: "completion_window",
    });
  }
  return undefined;
}

/**
 * `POST /v1/batches`: a batch from an uploaded input file. Invalid requests get OpenAI's 400s; an input
 * file with invalid lines makes a `failed` batch whose `errors` name the lines.
 *
 * @example
 * if (method === "POST" && path === "batches") return createBatch(batches, request, tenant, priority, 1_048_576);
 */
export async function createBatch(
  batches: Batches,
  request: Request,
  tenant: string,
  priority: string,
  maxBodyBytes: number,
): Promise<Response> {
  let body: Record<string, unknown> | undefined;
  try {
    body = await bodyOf(request, maxBodyBytes);
  } catch (error) {
    if (error instanceof LimitError)
      return openaiError(error.status, `${error.message}.`, { code: "request_too_large" });
    throw error;
  }
  if (body === undefined) return openaiError(400, "We could not parse the JSON body of your request.");
  const invalid = invalidCreate(body);
  if (invalid !== undefined) return invalid;
  try {
    const batch = await batches.createFromFile(body.input_file_id as string, {
      tenant,
      priority,
      endpoint: body.endpoint as string,
      completionWindowMs: parseWindow(body.completion_window)!,
      metadata: (body.metadata ?? undefined) as Record<string, string> | undefined,
    });
    return json(200, batchObject(batch));
  } catch (error) {
    if (error instanceof BatchError && error.code === "FILE_NOT_FOUND") {
      return openaiError(404, `No such File object: ${String(body.input_file_id).slice(0, 128)}`, {
        param: "input_file_id",
        code: "not_found",
      });
    }
    if (isSchedulerError(error, "INVALID_OPTION"))
      return openaiError(400, error.message, { param: "metadata" });
    throw error;
  }
}

const notFound = (id: string): Response =>
  openaiError(404, `No batch found with id '${id.slice(0, 128)}'.`, { code: "not_found", param: "id" });

/**
 * `GET /v1/batches/{id}`.
 *
 * @example
 * return getBatch(batches, "batch_abc", tenant);
 */
export async function getBatch(batches: Batches, id: string, tenant: string): Promise<Response> {
  const batch = await batches.get(id);
  return batch === undefined || !sameTenant(batch.tenant, tenant)
    ? notFound(id)
    : json(200, batchObject(batch));
}

/**
 * `POST /v1/batches/{id}/cancel`.
 *
 * @example
 * return cancelBatch(batches, "batch_abc", tenant);
 */
export async function cancelBatch(batches: Batches, id: string, tenant: string): Promise<Response> {
  const batch = await batches.get(id);
  if (batch === undefined || !sameTenant(batch.tenant, tenant)) return notFound(id);
  return json(200, batchObject(await batches.cancel(id)));
}

/**
 * `GET /v1/batches?after=…&limit=…`: the tenant's batches, newest first, in OpenAI's list shape.
 *
 * @example
 * return listBatches(batches, new URL(request.url), tenant);
 */
export async function listBatches(batches: Batches, url: URL, tenant: string): Promise<Response> {
  const limitText = url.searchParams.get("limit");
  const limit = limitText === null ? 20 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    return openaiError(400, "Invalid 'limit': expected an integer from 1 to 100.", { param: "limit" });
  }
  const after = url.searchParams.get("after") ?? undefined;
  const page = await batches.store.listBatches({ tenant, after, limit: limit + 1 });
  const data = page.slice(0, limit).map(batchObject);
  return json(200, {
    object: "list",
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: page.length > limit,
  });
}
