import { describe, expect, it } from "vitest";
import { faultContract } from "./contract-faults.js";
import { as, type ContractHarness, contractHarness, type StartApp } from "./contract-harness.js";
import { preemptionContract } from "./contract-preemption.js";
import { until } from "./probe.js";

export type { ContractApp, ContractSetup, StartApp } from "./contract-harness.js";

/**
 * The behaviours every adapter must have, run against one framework through `start`: these, then
 * {@link faultContract}'s (clients that leave, timeouts, broken bodies, hostile headers, credentials),
 * then {@link preemptionContract}'s.
 *
 * @example
 * runAdapterContract("express", startExpressApp);
 */
export function runAdapterContract(name: string, start: StartApp): void {
  describe(`adapter contract: ${name}`, { timeout: 10_000 }, () => {
    const h = contractHarness(start);
    basicContract(h);
    faultContract(h);
    preemptionContract(h);
  });
}

/** Queueing, streaming, rejections, priorities, mappings, retries and the untouched request body. */
function basicContract(h: ContractHarness): void {
  it("queues a request before its handler runs, and reports the wait in Server-Timing", async () => {
    const { fetch } = await h.open();
    const first = await h.occupy("a");
    const second = fetch("/slot", as("b"));
    await h.queued(1);
    expect(h.probe.ran).toEqual(["a"]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await h.vacate("a", first)).toBe("released");
    const answer = await second;
    const body = (await answer.json()) as { id: string; waitMs: number };
    expect(body.id).toBe("b");
    expect(body.waitMs).toBeGreaterThanOrEqual(15);
    expect(answer.headers.get("server-timing")).toMatch(/^queue;dur=\d+\.\d$/);
    expect(Number(answer.headers.get("server-timing")!.slice("queue;dur=".length))).toBeGreaterThanOrEqual(
      15,
    );
    expect(h.probe.ran).toEqual(["a", "b"]);
  });

  it("holds the slot until a slowly streamed response has been sent", async () => {
    const { fetch } = await h.open({ maxConcurrency: 2 });
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
    expect(h.probe.maxInside).toBe(2);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.type).toContain("text/event-stream");
      expect(answer.timing).toMatch(/^queue;dur=/);
      expect(answer.text.match(/^data: /gm)).toHaveLength(h.probe.streamChunks + 1);
      expect(answer.text.endsWith("data: [DONE]\n\n")).toBe(true);
    }
    await until(() => h.scheduler.metrics().completed === ids.length, "every stream to complete");
  });

  it("releases the slot exactly once when the handler throws", async () => {
    const { fetch } = await h.open();
    const thrown = await fetch("/throw", as("t"));
    expect(thrown.status).toBe(500);
    await thrown.text();
    const next = await fetch("/slot", as("u"));
    expect(next.status).toBe(200);
    await next.text();
    await until(() => h.scheduler.metrics().completed === 1, "the second request to complete");
    expect(h.scheduler.metrics()).toMatchObject({ started: 2, completed: 1, failed: 1 });
  });

  it("takes a client that leaves while queued out of the queue; its handler never runs", async () => {
    const { fetch } = await h.open();
    const first = await h.occupy("a");
    const client = new AbortController();
    const gone = fetch("/slot", { ...as("b"), signal: client.signal }).catch(() => undefined);
    await h.queued(1);
    client.abort();
    await gone;
    await h.queued(0);
    expect(h.scheduler.metrics().rejected).toMatchObject({ ABORTED: 1 });
    await h.vacate("a", first);
    await until(() => h.scheduler.metrics().running === 0, "a to finish");
    expect(h.probe.ran).toEqual(["a"]);
    expect(h.scheduler.metrics()).toMatchObject({ started: 1, completed: 1 });
  });

  it("answers a full queue with 429, Retry-After, retry-after-ms and an OpenAI-style body", async () => {
    const { fetch } = await h.open({ priorities: { interactive: { maxQueue: 1 }, batch: {} } });
    const first = await h.occupy("a");
    const second = fetch("/slot", as("b"));
    await h.queued(1);
    const refused = await fetch("/slot", as("c"));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toMatch(/^application\/json/);
    expect(refused.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(refused.headers.get("retry-after-ms")).toMatch(/^\d+$/);
    expect(await refused.json()).toEqual({
      error: { message: expect.any(String), type: "rate_limit_exceeded", code: "QUEUE_FULL", param: null },
    });
    await h.vacate("a", first);
    await (await second).text();
    expect(h.probe.ran).toEqual(["a", "b"]);
  });

  it("answers 503 once the scheduler is closed", async () => {
    const { fetch } = await h.open();
    await h.scheduler.close();
    const refused = await fetch("/slot", as("a"));
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: { code: "CLOSED", type: "server_unavailable" } });
    expect(h.probe.ran).toEqual([]);
  });

  it("answers 400 with a JSON error for an unknown x-priority", async () => {
    const { fetch } = await h.open();
    const refused = await fetch("/slot", as("a", { "x-priority": "urgent" }));
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("INVALID_PRIORITY");
    expect(body.error.message).toContain("urgent");
    expect(h.probe.ran).toEqual([]);
  });

  it("lets x-priority lower a request's priority but never raise it", async () => {
    const { fetch } = await h.open({
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
    const { fetch } = await h.open({}, { mapped: true });
    const mapped = await fetch("/slot", as("m", { "x-plan": "free", "x-tenant": "acme" }));
    expect(await mapped.json()).toMatchObject({ id: "m", priority: "batch", tenant: "acme" });
    const broken = await fetch("/slot", as("x", { "x-plan": "broken" }));
    expect(broken.status).toBe(500);
    await broken.text();
    expect(h.probe.ran).toEqual(["m"]);
    expect(h.scheduler.metrics().started).toBe(1);
  });

  it("lets onRejected replace the rejection response", async () => {
    const { fetch } = await h.open({}, { customRejection: true });
    await h.scheduler.close();
    const refused = await fetch("/slot", as("a"));
    expect(refused.status).toBe(529);
    expect(refused.headers.get("x-rejected-by")).toBe("onRejected");
    expect(await refused.text()).toBe("rejected: CLOSED");
  });

  it("queues a claimed retry (x-stainless-retry-count) at the back while its tenant has no recent refusal", async () => {
    const { fetch } = await h.open();
    const first = await h.occupy("a");
    const later = [fetch("/slot", as("b"))];
    await h.queued(1);
    later.push(fetch("/slot", as("c")));
    await h.queued(2);
    later.push(fetch("/slot", as("retry", { "x-stainless-retry-count": "1" })));
    await h.queued(3);
    await h.vacate("a", first);
    await Promise.all(later.map(async (answer) => (await answer).text()));
    expect(h.probe.ran).toEqual(["a", "b", "c", "retry"]);
  });

  it("never reads the request body: the handler still can, after waiting in the queue", async () => {
    const { fetch } = await h.open();
    const first = await h.occupy("a");
    const body = JSON.stringify({ messages: [{ role: "user", content: "hello scheduler" }] });
    const echo = fetch("/echo", {
      method: "POST",
      body,
      headers: { "x-request-id": "e", "content-type": "application/json" },
    });
    await h.queued(1);
    await h.vacate("a", first);
    expect(await (await echo).text()).toBe(body);
  });
}
