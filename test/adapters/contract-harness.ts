import { createScheduler, type Scheduler, type SchedulerOptions } from "@llm-scheduler/core";
import { afterEach, expect } from "vitest";
import { Probe, until } from "./probe.js";

/**
 * How a harness must build its app, the same way in every framework, with the framework's own idioms:
 *
 * - the scheduler middleware in front of every route, with `{ scheduler, timeoutMs }`;
 * - when `mapped`: `priority` async, "batch" for `x-plan: free`, "interactive" otherwise, throwing a plain
 *   `Error` for `x-plan: broken`; `tenant` sync, from `x-tenant`;
 * - when `customRejection`: `onRejected` answers status 529, header `x-rejected-by: onRejected`, text
 *   body `rejected: <code>`;
 * - routes (each handler calls `probe.enter(slot)` first, `slot` being where the framework exposes it):
 *   `GET /slot`: JSON `{ id, priority, tenant, waitMs }` of the slot;
 *   `GET /wait`: `await probe.hold(slot)`; 200 text "released", or 504 text "aborted";
 *   `GET /stream`: `text/event-stream` written chunk by chunk from `probe.sse(slot)` (Express `res.write`,
 *   Koa stream body, Hono `ReadableStream`);
 *   `GET /throw`: throws an `Error` (the framework answers 500; keep its error log quiet);
 *   `GET /hang`: never answers and ignores its signal (a handler stuck on something else);
 *   `GET /broken`: starts a `text/event-stream` with one chunk from `probe.sse(slot)`, then its body
 *   fails (Express: the handler throws after writing; Koa: a stream body that errors; Hono: a
 *   `ReadableStream` that errors);
 *   `POST /echo`: reads the request body itself and answers it back as text.
 *
 * After an abort (client gone, run timeout) a handler ends its work as its framework allows: Express
 * calls `res.end()` (the middleware may have answered 504 already), Koa and Hono return.
 */
export interface ContractSetup {
  readonly scheduler: Scheduler;
  readonly probe: Probe;
  readonly timeoutMs?: number;
  readonly mapped?: boolean;
  readonly customRejection?: boolean;
}

/** A started app: `fetch` takes a path (`/slot`) and behaves like the global `fetch` against it. */
export interface ContractApp {
  fetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export type StartApp = (setup: ContractSetup) => Promise<ContractApp>;

/** Request options for a request with `x-request-id: id` and the given headers. */
export const as = (id: string, headers: Record<string, string> = {}): RequestInit => ({
  headers: { "x-request-id": id, ...headers },
});

/** What a contract test works with: the app under test, its scheduler and probe, and small helpers. */
export interface ContractHarness {
  readonly scheduler: Scheduler;
  readonly probe: Probe;
  /** Requests whose handler never ends: the scheduler's grace frees their slots, the adapter does not. */
  readonly graceFreed: Set<string>;
  /** Starts the app with a scheduler of one slot (unless `options` say otherwise). */
  open(options?: SchedulerOptions, extra?: Omit<ContractSetup, "scheduler" | "probe">): Promise<ContractApp>;
  /** Waits until `count` requests are queued. */
  queued(count: number): Promise<void>;
  /** Starts `GET /wait` as `id` and waits until its handler holds a slot; `vacate(id)` lets it answer. */
  occupy(id: string): Promise<{ readonly response: Promise<Response> }>;
  /** Lets the handler started by {@link occupy} answer, and reads its answer. */
  vacate(id: string, held: { readonly response: Promise<Response> }): Promise<string>;
}

/**
 * Sets up one framework's app for each test of a `describe` block, and after each test checks that
 * every slot was released, each exactly once by the adapter (or by the grace, for a handler that never
 * ends), before closing the app and its scheduler.
 *
 * @example
 * const h = contractHarness(startExpressApp);
 * it("…", async () => { const { fetch } = await h.open(); … });
 */
export function contractHarness(start: StartApp): ContractHarness {
  let scheduler: Scheduler | undefined;
  let probe: Probe | undefined;
  let app: ContractApp | undefined;
  const graceFreed = new Set<string>();
  const harness: ContractHarness = {
    get scheduler() {
      return scheduler!;
    },
    get probe() {
      return probe!;
    },
    graceFreed,
    async open(options = {}, extra = {}) {
      scheduler = createScheduler({ maxConcurrency: 1, ...options });
      probe = new Probe();
      app = await start({ scheduler, probe, ...extra });
      return app;
    },
    queued: (count) => until(() => harness.scheduler.metrics().queued === count, `${count} queued`),
    async occupy(id) {
      const response = app!.fetch("/wait", as(id));
      await until(() => harness.probe.ran.includes(id), `${id} to run`);
      return { response };
    },
    async vacate(id, held) {
      harness.probe.open(id);
      return (await held.response).text();
    },
  };
  afterEach(async () => {
    probe?.openAll();
    try {
      await until(() => harness.scheduler.metrics().running === 0, "every slot to be released");
      expect(harness.scheduler.metrics()).toMatchObject({ running: 0, queued: 0 });
      // Exactly once, except for a slot the grace freed (its handler never ended): never by the adapter.
      for (const [id, count] of harness.probe.releases)
        expect({ id, releases: count }).toEqual({ id, releases: graceFreed.has(id) ? 0 : 1 });
    } finally {
      await app?.close();
      await scheduler?.close({ timeoutMs: 100 });
      app = undefined;
      graceFreed.clear();
    }
  });
  return harness;
}
