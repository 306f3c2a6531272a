import { createScheduler, type Scheduler, type SchedulerOptions } from "@llm-scheduler/core";
import { afterEach, describe, expect, it } from "vitest";
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

const as = (id: string, headers: Record<string, string> = {}): RequestInit => ({
  headers: { "x-request-id": id, ...headers },
});

/**
 * The behaviours every adapter must have, run against one framework through `start`.
 *
 * @example
 * runAdapterContract("express", startExpressApp);
 */
export function runAdapterContract(name: string, start: StartApp): void {
  describe(`adapter contract: ${name}`, { timeout: 10_000 }, () => {
    let scheduler: Scheduler;
    let probe: Probe;
    let app: ContractApp | undefined;
    /** Requests whose handler never ends: the scheduler's grace frees their slots, the adapter does not. */
    const graceFreed = new Set<string>();

    async function open(
      options: SchedulerOptions = {},
      extra: Omit<ContractSetup, "scheduler" | "probe"> = {},
    ) {
      scheduler = createScheduler({ maxConcurrency: 1, ...options });
      probe = new Probe();
      app = await start({ scheduler, probe, ...extra });
      return app;
    }

    const queued = (count: number) => until(() => scheduler.metrics().queued === count, `${count} queued`);

    /** Starts `GET /wait` as `id` and waits until its handler holds a slot; `open(id)` lets it answer. */
    async function occupy(id: string): Promise<{ readonly response: Promise<Response> }> {
      const response = app!.fetch("/wait", as(id));
      await until(() => probe.ran.includes(id), `${id} to run`);
      return { response };
    }

    /** Lets the handler started by {@link occupy} answer, and reads its answer. */
    async function vacate(id: string, held: { readonly response: Promise<Response> }): Promise<string> {
      probe.open(id);
      return (await held.response).text();
    }

    afterEach(async () => {
      probe.openAll();
      try {
        await until(() => scheduler.metrics().running === 0, "every slot to be released");
        expect(scheduler.metrics()).toMatchObject({ running: 0, queued: 0 });
        // Exactly once, except for a slot the grace freed (its handler never ended): never by the adapter.
        for (const [id, count] of probe.releases)
          expect({ id, releases: count }).toEqual({ id, releases: graceFreed.has(id) ? 0 : 1 });
      } finally {
        await app?.close();
        await scheduler.close({ timeoutMs: 100 });
        app = undefined;
        graceFreed.clear();
      }
    });

    it("queues a request before its handler runs, and reports the wait in Server-Timing", async () => {
      const { fetch } = await open();
      const first = await occupy("a");
      const second = fetch("/slot", as("b"));
      await queued(1);
      expect(probe.ran).toEqual(["a"]);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await vacate("a", first)).toBe("released");
      const answer = await second;
      const body = (await answer.json()) as { id: string; waitMs: number };
      expect(body.id).toBe("b");
      expect(body.waitMs).toBeGreaterThanOrEqual(15);
      expect(answer.headers.get("server-timing")).toMatch(/^queue;dur=\d+\.\d$/);
      expect(Number(answer.headers.get("server-timing")!.slice("queue;dur=".length))).toBeGreaterThanOrEqual(
        15,
      );
      expect(probe.ran).toEqual(["a", "b"]);
    });

    it("holds the slot until a slowly streamed response has been sent", async () => {
      const { fetch } = await open({ maxConcurrency: 2 });
      const ids = ["s1", "s2", "s3", "s4", "s5", "s6"];
      const answers = await Promise.all(
        ids.map(async (id) => {
          const response = await fetch("/stream", as(id));
          return {
            status: response.status,
            type: response.headers.get("content-type"),
            timing: response.headers.get("server-timing"),
            text: await response.text(),
          };
        }),
      );
      expect(probe.maxInside).toBe(2);
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(answer.type).toContain("text/event-stream");
        expect(answer.timing).toMatch(/^queue;dur=/);
        expect(answer.text.match(/^data: /gm)).toHaveLength(probe.streamChunks + 1);
        expect(answer.text.endsWith("data: [DONE]\n\n")).toBe(true);
      }
      await until(() => scheduler.metrics().completed === ids.length, "every stream to complete");
    });

    it("releases the slot exactly once when the handler throws", async () => {
      const { fetch } = await open();
      const thrown = await fetch("/throw", as("t"));
      expect(thrown.status).toBe(500);
      await thrown.text();
      const next = await fetch("/slot", as("u"));
      expect(next.status).toBe(200);
      await next.text();
      await until(() => scheduler.metrics().completed === 1, "the second request to complete");
      expect(scheduler.metrics()).toMatchObject({ started: 2, completed: 1, failed: 1 });
    });

    it("takes a client that leaves while queued out of the queue; its handler never runs", async () => {
      const { fetch } = await open();
      const first = await occupy("a");
      const client = new AbortController();
      const gone = fetch("/slot", { ...as("b"), signal: client.signal }).catch(() => undefined);
      await queued(1);
      client.abort();
      await gone;
      await queued(0);
      expect(scheduler.metrics().rejected).toMatchObject({ ABORTED: 1 });
      await vacate("a", first);
      await until(() => scheduler.metrics().running === 0, "a to finish");
      expect(probe.ran).toEqual(["a"]);
      expect(scheduler.metrics()).toMatchObject({ started: 1, completed: 1 });
    });

    it("aborts the exposed signal when the client leaves while the handler runs", async () => {
      const { fetch } = await open();
      const client = new AbortController();
      const gone = fetch("/wait", { ...as("a"), signal: client.signal }).catch(() => undefined);
      await until(() => probe.ran.includes("a"), "a to run");
      client.abort();
      await gone;
      await until(() => probe.aborted.has("a"), "a's signal to abort");
      await until(() => scheduler.metrics().running === 0, "a's slot to be released");
      expect(await (await fetch("/slot", as("b"))).json()).toMatchObject({ id: "b" });
    });

    it("aborts the signal and frees the slot when the client leaves in the middle of a stream", async () => {
      const { fetch } = await open();
      probe.streamChunks = 200;
      const client = new AbortController();
      const response = await fetch("/stream", { ...as("s"), signal: client.signal });
      const reader = response.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain("data: ");
      client.abort();
      await reader.read().catch(() => undefined);
      await until(() => probe.aborted.has("s"), "the stream's signal to abort");
      await until(() => scheduler.metrics().running === 0, "the stream's slot to be released");
      expect(scheduler.metrics().completed).toBe(0);
    });

    it("answers a full queue with 429, Retry-After, retry-after-ms and an OpenAI-style body", async () => {
      const { fetch } = await open({ priorities: { interactive: { maxQueue: 1 }, batch: {} } });
      const first = await occupy("a");
      const second = fetch("/slot", as("b"));
      await queued(1);
      const refused = await fetch("/slot", as("c"));
      expect(refused.status).toBe(429);
      expect(refused.headers.get("content-type")).toMatch(/^application\/json/);
      expect(refused.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
      expect(refused.headers.get("retry-after-ms")).toMatch(/^\d+$/);
      expect(await refused.json()).toEqual({
        error: { message: expect.any(String), type: "rate_limit_exceeded", code: "QUEUE_FULL" },
      });
      await vacate("a", first);
      await (await second).text();
      expect(probe.ran).toEqual(["a", "b"]);
    });

    it("answers 503 once the scheduler is closed", async () => {
      const { fetch } = await open();
      await scheduler.close();
      const refused = await fetch("/slot", as("a"));
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({ error: { code: "CLOSED", type: "server_unavailable" } });
      expect(probe.ran).toEqual([]);
    });

    it("answers 400 with a JSON error for an unknown x-priority", async () => {
      const { fetch } = await open();
      const refused = await fetch("/slot", as("a", { "x-priority": "urgent" }));
      expect(refused.status).toBe(400);
      const body = (await refused.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("INVALID_PRIORITY");
      expect(body.error.message).toContain("urgent");
      expect(probe.ran).toEqual([]);
    });

    it("lets x-priority lower a request's priority but never raise it", async () => {
      const { fetch } = await open({
        priorities: { interactive: { weight: 5 }, standard: { weight: 2 }, batch: { weight: 1 } },
        defaultPriority: "standard",
      });
      const priorityOf = async (header?: string) => {
        const response = await fetch("/slot", as(`p-${header}`, header ? { "x-priority": header } : {}));
        return ((await response.json()) as { priority: string }).priority;
      };
      expect(await priorityOf()).toBe("standard");
      expect(await priorityOf("batch")).toBe("batch");
      expect(await priorityOf("interactive")).toBe("standard");
    });

    it("uses the operator's async priority and sync tenant mapping, and lets a throwing one fail the request", async () => {
      const { fetch } = await open({}, { mapped: true });
      const mapped = await fetch("/slot", as("m", { "x-plan": "free", "x-tenant": "acme" }));
      expect(await mapped.json()).toMatchObject({ id: "m", priority: "batch", tenant: "acme" });
      const broken = await fetch("/slot", as("x", { "x-plan": "broken" }));
      expect(broken.status).toBe(500);
      await broken.text();
      expect(probe.ran).toEqual(["m"]);
      expect(scheduler.metrics().started).toBe(1);
    });

    it("lets onRejected replace the rejection response", async () => {
      const { fetch } = await open({}, { customRejection: true });
      await scheduler.close();
      const refused = await fetch("/slot", as("a"));
      expect(refused.status).toBe(529);
      expect(refused.headers.get("x-rejected-by")).toBe("onRejected");
      expect(await refused.text()).toBe("rejected: CLOSED");
    });

    it("schedules a request with x-stainless-retry-count >= 1 at the front of its tenant's queue", async () => {
      const { fetch } = await open();
      const first = await occupy("a");
      const later = [fetch("/slot", as("b"))];
      await queued(1);
      later.push(fetch("/slot", as("c")));
      await queued(2);
      later.push(fetch("/slot", as("retry", { "x-stainless-retry-count": "1" })));
      await queued(3);
      await vacate("a", first);
      await Promise.all(later.map(async (answer) => (await answer).text()));
      expect(probe.ran).toEqual(["a", "retry", "b", "c"]);
    });

    it("never reads the request body: the handler still can, after waiting in the queue", async () => {
      const { fetch } = await open();
      const first = await occupy("a");
      const body = JSON.stringify({ messages: [{ role: "user", content: "hello scheduler" }] });
      const echo = fetch("/echo", {
        method: "POST",
        body,
        headers: { "x-request-id": "e", "content-type": "application/json" },
      });
      await queued(1);
      await vacate("a", first);
      expect(await (await echo).text()).toBe(body);
    });

    it("answers a run timeout with 504 and an OpenAI-style body, and aborts the handler's signal", async () => {
      const { fetch } = await open({}, { timeoutMs: 30 });
      const answer = await fetch("/wait", as("slow"));
      expect(answer.status).toBe(504);
      expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await answer.json()).toEqual({
        error: { message: expect.any(String), type: "timeout", code: "RUN_TIMEOUT" },
      });
      expect(probe.aborted.get("slow")).toMatchObject({ code: "RUN_TIMEOUT" });
      await until(() => scheduler.metrics().running === 0, "the slot to be released");
      expect(scheduler.metrics()).toMatchObject({ completed: 0, failed: 1 });
    });

    it("answers a run timeout with 504 even when the handler never answers", async () => {
      const { fetch } = await open({ abortGraceMs: 200 }, { timeoutMs: 30 });
      graceFreed.add("stuck");
      const answer = await fetch("/hang", as("stuck"));
      expect(answer.status).toBe(504);
      expect(await answer.json()).toMatchObject({ error: { code: "RUN_TIMEOUT" } });
      await until(() => scheduler.metrics().running === 0, "the grace to free the slot");
    });

    it("holds a slot whose client left until the handler's work ends, or abortGraceMs has passed", async () => {
      const graceMs = 300;
      const { fetch } = await open({ abortGraceMs: graceMs });
      graceFreed.add("h");
      const client = new AbortController();
      const gone = fetch("/hang", { ...as("h"), signal: client.signal }).catch(() => undefined);
      await until(() => probe.ran.includes("h"), "h to run");
      client.abort();
      await gone;
      await until(() => scheduler.metrics().failed === 1, "the abort to be counted");
      const abortedAt = performance.now();
      expect(scheduler.metrics().running).toBe(1); // the handler may still be talking to the upstream
      await until(() => scheduler.metrics().running === 0, "the grace to free the slot");
      expect(performance.now() - abortedAt).toBeGreaterThanOrEqual(graceMs * 0.8);
    });

    it("counts a response whose body failed midway as failed, not completed", async () => {
      const { fetch } = await open({ abortGraceMs: 300 });
      // The body may fail before its headers even reach the client (Express destroys the connection).
      const answer = await fetch("/broken", as("b")).catch(() => undefined);
      if (answer !== undefined) {
        expect(answer.status).toBe(200);
        await answer.text().catch(() => undefined);
      }
      await until(() => scheduler.metrics().running === 0, "the slot to be released");
      expect(scheduler.metrics()).toMatchObject({ completed: 0, failed: 1 });
    });

    it("answers hostile x-priority headers (huge, repeated, non-ASCII) with a short 400 JSON", async () => {
      const { fetch } = await open();
      const attempts: Array<[string, HeadersInit]> = [
        ["huge", { "x-priority": "b".repeat(8_000) }],
        [
          "repeated",
          [
            ["x-priority", "batch"],
            ["x-priority", "interactive"],
          ],
        ],
        ["latin1", { "x-priority": "b\u00e4tch" }],
      ];
      for (const [id, headers] of attempts) {
        const refused = await fetch("/slot", {
          headers: new Headers([...new Headers(headers), ["x-request-id", id]]),
        });
        expect(refused.status).toBe(400);
        const text = await refused.text();
        expect(text.length).toBeLessThan(400);
        expect(JSON.parse(text)).toMatchObject({ error: { code: "INVALID_PRIORITY" } });
      }
      expect(probe.ran).toEqual([]);
    });

    it("numbers a request whose x-request-id is unusable, and ignores a nonsense retry count", async () => {
      const { fetch } = await open();
      for (const [requestId, retry] of [
        ["r".repeat(4_000), "1e999"],
        ["caf\u00e9", "-1"],
        ["a b", "NaN"],
      ] as const) {
        const answer = await fetch("/slot", {
          headers: { "x-request-id": requestId, "x-stainless-retry-count": retry },
        });
        expect(answer.status).toBe(200);
        const { id } = (await answer.json()) as { id: string };
        expect(id).not.toBe(requestId);
        expect(id.length).toBeLessThanOrEqual(128);
      }
      expect(probe.ran).toHaveLength(3);
    });

    it("never echoes a credential: a 930-character bearer token used as the tenant", async () => {
      const { fetch } = await open({}, { mapped: true });
      const token = `eyJ${"a1B2c3D4e5".repeat(92)}Z9`; // 930 characters, like an ordinary JWT
      const answer = await fetch(
        "/slot",
        as("jwt", { authorization: `Bearer ${token}`, "x-tenant": `Bearer ${token}` }),
      );
      // 400 while core refuses tenants this long, 200 once it hashes them: either way no echo.
      expect([200, 400]).toContain(answer.status);
      const text = await answer.text();
      const headers = [...answer.headers].join("\n");
      for (let start = 0; start + 16 <= token.length; start += 16) {
        if (answer.status !== 200) expect(text).not.toContain(token.slice(start, start + 16));
        expect(headers).not.toContain(token.slice(start, start + 16));
      }
    });
  });
}
