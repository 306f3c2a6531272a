import type { ServedBatches } from "@llm-scheduler/batches";
import { createDashboard, type Dashboard } from "@llm-scheduler/dashboard";
import type { ModelRuntime } from "./model.js";
import { openaiError } from "./respond.js";

/**
 * One dashboard per model at `/dashboard/<model>`, with its pool's replicas; `/dashboard` sends to the
 * first. Admin key only.
 */
export class Dashboards {
  readonly #byModel = new Map<string, Dashboard>();
  readonly #batches: ServedBatches;
  readonly #authorize: (request: Request) => Promise<boolean>;

  constructor(batches: ServedBatches, authorize: (request: Request) => Promise<boolean>) {
    this.#batches = batches;
    this.#authorize = authorize;
  }

  follow(models: ReadonlyMap<string, ModelRuntime>): void {
    for (const [name, dashboard] of this.#byModel) {
      if (!models.has(name)) {
        dashboard.close();
        this.#byModel.delete(name);
      }
    }
    for (const [name, model] of models) {
      if (this.#byModel.has(name)) continue;
      const path = `/dashboard/${encodeURIComponent(name)}`;
      this.#byModel.set(
        name,
        createDashboard({
          scheduler: model.scheduler,
          batches: this.#batches,
          // read through the model at each snapshot: a reload that replaces the pool is followed
          replicas: { metrics: () => model.pool.metrics() },
          authorize: this.#authorize,
          path,
        }),
      );
    }
  }

  serve(request: Request): Response | Promise<Response> {
    const rest = new URL(request.url).pathname.slice("/dashboard".length);
    const name = decodeURIComponent(rest.split("/")[1] ?? "");
    const first = this.#byModel.keys().next().value;
    if (name === "" && first !== undefined) {
      return new Response(null, {
        status: 302,
        headers: { location: `/dashboard/${encodeURIComponent(first)}` },
      });
    }
    const dashboard = this.#byModel.get(name);
    if (dashboard === undefined) return openaiError(404, "No dashboard for that model.", "unknown_url");
    return dashboard(request);
  }

  close(): void {
    for (const dashboard of this.#byModel.values()) dashboard.close();
    this.#byModel.clear();
  }
}
