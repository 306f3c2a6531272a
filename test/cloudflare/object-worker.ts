import { type ObjectContext, SchedulerObject } from "@llm-scheduler/cloudflare";

interface Env {
  readonly LLM_SCHEDULER: {
    idFromName(name: string): unknown;
    get(id: unknown): { fetch(r: Request): Promise<Response> };
  };
}

/**
 * The object class as a Worker exports it, plus one thing for tests: `POST /crash` resets the object
 * (`ctx.abort()`, as a restart of the object would), dropping everything it held in memory.
 */
export class TestSchedulerObject extends SchedulerObject {
  readonly #ctx: ObjectContext & { abort(reason?: string): void };

  constructor(ctx: ObjectContext & { abort(reason?: string): void }, env: unknown) {
    super(ctx, env);
    this.#ctx = ctx;
  }

  override fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname === "/crash") this.#ctx.abort("reset by the test");
    return super.fetch(request);
  }
}

/**
 * `/object/<name>` forwards a call to the object of that name, so that a store in Node (the contract
 * suite) reaches the real object in workerd; `/crash/<name>` resets it.
 */
export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const [, route, name] = new URL(request.url).pathname.split("/");
    if ((route !== "object" && route !== "crash") || name === undefined || name === "") {
      return new Response("not found", { status: 404 });
    }
    const stub = env.LLM_SCHEDULER.get(env.LLM_SCHEDULER.idFromName(decodeURIComponent(name)));
    if (route === "object") return stub.fetch(request);
    try {
      await stub.fetch(new Request("https://scheduler-object/crash", { method: "POST", body: "{}" }));
    } catch {
      // the reset breaks the call that caused it
    }
    return new Response("reset");
  },
};
