import { mayControl } from "./controls.js";
import type { ResolvedDashboardOptions } from "./options.js";
import { openaiError } from "./respond.js";

/**
 * What one request may do: `controls` for operators (whom `authorize` accepts), and what it may see:
 * `full` (tenants, batches, failed items), `aggregate` (totals only) or `none`.
 */
export interface Viewer {
  readonly controls: boolean;
  readonly view: "full" | "aggregate" | "none";
}

/**
 * Asks `authorize` once: an operator sees everything and may use the controls; anyone else sees what
 * `access` allows.
 *
 * @example
 * const viewer = await viewerOf(options, request);
 * if (viewer.view === "none") return notAuthorized();
 */
export async function viewerOf(options: ResolvedDashboardOptions, request: Request): Promise<Viewer> {
  if (await mayControl(options, request)) return { controls: true, view: "full" };
  const view = options.access === "open" ? "full" : options.access;
  return { controls: false, view };
}

/**
 * 403 for what this request may not see; says nothing about the data it would have shown.
 *
 * @example
 * if (viewer.view !== "full") return notAuthorized("Batch details");
 */
export function notAuthorized(what: string): Response {
  const message = `${what} are shown to authorized viewers only`;
  return openaiError(403, { message, type: "permission_error", code: "not_authorized" });
}
