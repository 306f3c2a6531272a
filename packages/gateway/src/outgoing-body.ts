import type { ModelRuntime } from "./model.js";

/**
 * The body sent upstream: the original bytes when nothing changes, otherwise a copy naming the server's
 * model (`upstreamModel`) and carrying the priority's value in `passPriority.field`.
 *
 * @example
 * outgoingBody(body, bytes, model.config, "batch"); // `{ …, "priority": 10 }` with passPriority
 */
export function outgoingBody(
  body: Record<string, unknown>,
  bytes: Uint8Array<ArrayBuffer>,
  model: Pick<ModelRuntime["config"], "upstreamModel" | "name" | "passPriority">,
  priority: string,
): Uint8Array<ArrayBuffer> | string {
  const { upstreamModel, name, passPriority } = model;
  const passed = passPriority?.values[priority];
  if (upstreamModel === name && passed === undefined) return bytes;
  const copy: Record<string, unknown> = { ...body, model: upstreamModel };
  if (passPriority !== undefined && passed !== undefined) copy[passPriority.field] = passed;
  return JSON.stringify(copy);
}
