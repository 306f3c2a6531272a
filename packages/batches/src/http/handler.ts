import { invalidOption } from "@llm-scheduler/core/kit";
import type { Batches } from "../batches.js";
import { cancelBatch, createBatch, getBatch, listBatches } from "./batch-routes.js";
import { deleteFile, fileContent, getFile, type UploadLimits, upload } from "./files.js";
import { type BatchesHttpOptions, type ResolvedHttpOptions, resolveHttpOptions } from "./options.js";
import { openaiError } from "./respond.js";

/** What the routes read: the HTTP options and the batch layer's file limits. */
type HttpOptions = ResolvedHttpOptions & UploadLimits;

/** A web handler: OpenAI's Files and Batches routes over `Request`/`Response`. */
export type BatchesHandler = (request: Request) => Promise<Response>;

const ROUTE = /\/v1\/(files|batches)(?:\/([^/]+))?(?:\/(content|cancel))?\/?$/;

type Route = { kind: "files" | "batches"; id: string | undefined; action: string | undefined };

function routeOf(url: URL): Route | undefined {
  const match = ROUTE.exec(url.pathname);
  if (match === null) return undefined;
  const id = match[2] === undefined ? undefined : decodeURIComponent(match[2]);
  return { kind: match[1] as Route["kind"], id, action: match[3] };
}

function dispatch(batches: Batches, request: Request, route: Route, tenant: string, options: HttpOptions) {
  const { method } = request;
  const { kind, id, action } = route;
  if (kind === "files") {
    if (id === undefined && method === "POST") return upload(batches, request, tenant, options);
    if (id !== undefined && action === undefined && method === "GET") return getFile(batches, id, tenant);
    if (id !== undefined && action === undefined && method === "DELETE")
      return deleteFile(batches, id, tenant);
    if (id !== undefined && action === "content" && method === "GET") return fileContent(batches, id, tenant);
  } else {
    if (id === undefined && method === "POST")
      return priorityOf(batches, request, tenant, options).then((priority) =>
        createBatch(batches, request, tenant, priority, options.maxBodyBytes),
      );
    if (id === undefined && method === "GET") return listBatches(batches, new URL(request.url), tenant);
    if (id !== undefined && action === undefined && method === "GET") return getBatch(batches, id, tenant);
    if (id !== undefined && action === "cancel" && method === "POST") return cancelBatch(batches, id, tenant);
  }
  return undefined;
}

/** The hook's priority for this request; an unknown one throws (a 500, reported to `onError`). */
async function priorityOf(batches: Batches, request: Request, tenant: string, options: HttpOptions) {
  const priority = await options.httpPriority(request, tenant);
  const known = batches.options.scheduler.options.priorities.map((p) => p.name);
  if (typeof priority !== "string" || !known.includes(priority)) {
    throw invalidOption(
      "httpPriority",
      `a function answering a configured priority (${known.join(", ")})`,
      priority,
    );
  }
  return priority;
}

/** The longest tenant a batch may carry (as `create()` takes it). */
const MAX_TENANT = 256;

/** Instances already told (through `onError`) that their HTTP routes are closed. */
const told = new WeakSet<Batches>();

/**
 * The answer of an instance created without `tenant`: nobody is served (there is no identity to keep
 * tenants apart), and `onError` hears once why and how to open the routes on purpose.
 */
function closed(batches: Batches): Response {
  if (!told.has(batches)) {
    told.add(batches);
    batches.options.onError(
      invalidOption(
        "tenant",
        'a function saying who a request belongs to before `fetch()` serves anything (`tenant: () => "default"` opens the batch API to every caller as one tenant, on purpose)',
        undefined,
      ),
    );
  }
  return openaiError(401, "The batch API is closed: the server has no way to identify callers.", {
    code: "invalid_api_key",
  });
}

/**
 * OpenAI's Files and Batches routes over web `Request`/`Response`, for a batch layer: the HTTP layer,
 * which depends on the batch layer and never the reverse (`createBatches` wires one in as
 * `batches.fetch`). Options are checked at once (`INVALID_OPTION` naming the field). A request is
 * matched on the end of its path (`…/v1/files`, `…/v1/batches/{id}/cancel`), so it works mounted under
 * any prefix. It never throws: every failure is an OpenAI-style JSON error; an unexpected one is a 500
 * that reveals nothing and goes to the batch layer's `onError`. Without a `tenant` function every
 * request is a 401.
 *
 * @example
 * const serve = batchesHandler(batches, { tenant: bearerKeyTenant });
 * app.all("/v1/files/*", (c) => serve(c.req.raw)); // Hono
 */
export function batchesHandler(batches: Batches, options?: BatchesHttpOptions): BatchesHandler {
  return handlerOf(batches, resolveHttpOptions(options, batches.options.scheduler));
}

/** The handler for options already resolved (what `createBatches` uses after checking them up front). */
export function handlerOf(batches: Batches, http: ResolvedHttpOptions): BatchesHandler {
  const { fileTtlMs, maxFilesPerTenant, maxFileBytesPerTenant } = batches.options;
  const options: HttpOptions = { ...http, fileTtlMs, maxFilesPerTenant, maxFileBytesPerTenant };
  return function serveBatches(request) {
    return handle(batches, request, options);
  };
}

async function handle(batches: Batches, request: Request, options: HttpOptions): Promise<Response> {
  let route: Route | undefined;
  try {
    route = routeOf(new URL(request.url));
  } catch {
    return openaiError(400, "The path has malformed percent-encoding.", { code: "invalid_url" });
  }
  if (route === undefined)
    return openaiError(
      404,
      `Unknown route: ${request.method} ${new URL(request.url).pathname.slice(0, 200)}`,
      { code: "unknown_url" },
    );
  if (options.tenant === undefined) return closed(batches);
  try {
    const tenant = await options.tenant(request);
    if (typeof tenant !== "string" || tenant === "") {
      return openaiError(401, "Incorrect or missing API key.", { code: "invalid_api_key" });
    }
    if (tenant.length > MAX_TENANT) {
      // the value may be derived from a key: only its length is told, and only to onError
      const shown = `[${tenant.length} characters]`;
      throw invalidOption("tenant", `a function answering at most ${MAX_TENANT} characters`, shown);
    }
    const answer = await dispatch(batches, request, route, tenant, options);
    return (
      answer ??
      openaiError(405, `Method ${request.method} is not allowed here.`, { code: "method_not_allowed" })
    );
  } catch (error) {
    batches.options.onError(error);
    return openaiError(500, "The server had an error while processing your request.");
  }
}
