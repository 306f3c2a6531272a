import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { createScheduler, type Permit } from "@llm-scheduler/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { answerInstead, headHeld, holdHead, type NodeHeadLike } from "./held-head.js";

/** A real Node response with no socket: what it sends stays in `outputData`, to be read back. */
function response(method = "GET"): ServerResponse & { outputData: Array<{ data: unknown }> } {
  const req = new IncomingMessage(new Socket());
  req.method = method;
  return new ServerResponse(req) as ServerResponse & { outputData: Array<{ data: unknown }> };
}

const sent = (res: ReturnType<typeof response>): string =>
  res.outputData.map(({ data }) => String(data)).join("");

/** A permit of a batch request that an interactive one may preempt (so it waits for its first byte). */
function preemptiblePermit(): Permit {
  const scheduler = createScheduler({
    maxConcurrency: 1,
    priorities: { interactive: { preempts: ["batch"] }, batch: {} },
  });
  const permit = scheduler.tryAcquire({ priority: "batch" })!;
  expect(permit.preemptible).toBe(true);
  return permit;
}

function held(method?: string) {
  const res = response(method);
  const permit = preemptiblePermit();
  holdHead(res as unknown as NodeHeadLike, permit);
  return { res, permit, head: res as unknown as NodeHeadLike };
}

describe("holdHead", () => {
  it("keeps writeHead() and flushHeaders() back until the first body byte, then sends them with it", () => {
    const { res, permit } = held();
    res.writeHead(201, "Made", { "content-type": "text/event-stream", "x-a": "1" });
    res.flushHeaders();
    expect(res.headersSent).toBe(false);
    expect(sent(res)).toBe("");
    expect(res.statusCode).toBe(201);
    expect(res.getHeader("x-a")).toBe("1");
    expect(permit.preemptible).toBe(true);
    res.write("data: 1\n\n");
    expect(res.headersSent).toBe(true);
    expect(sent(res)).toMatch(/^HTTP\/1\.1 201 Made\r\n/);
    expect(sent(res)).toContain("content-type: text/event-stream");
    expect(sent(res)).toContain("data: 1");
    expect(permit.preemptible).toBe(false); // past its first byte: immune
  });

  it("treats a flat header list as Node does: its names replace earlier ones and may repeat", () => {
    const { res } = held();
    res.setHeader("set-cookie", "old=1");
    res.writeHead(200, ["set-cookie", "a=1", "set-cookie", "b=2", "x-b", "2"]);
    res.end();
    expect(sent(res)).toContain("set-cookie: a=1\r\nset-cookie: b=2");
    expect(sent(res)).not.toContain("old=1");
    expect(sent(res)).toContain("x-b: 2");
  });

  it("sends the head with end() when there is no body (HEAD, 204)", () => {
    const { res, permit } = held("HEAD");
    res.writeHead(204);
    res.end();
    expect(sent(res)).toMatch(/^HTTP\/1\.1 204 No Content\r\n/);
    expect(permit.preemptible).toBe(false);
  });

  it("refuses a status Node would refuse", () => {
    const { res } = held();
    expect(() => res.writeHead(42)).toThrow(
      expect.objectContaining({ code: "ERR_HTTP_INVALID_STATUS_CODE" }),
    );
  });
});

describe("answerInstead", () => {
  it("replaces the held head with the middleware's answer and ignores what the handler does next", async () => {
    const { res, head } = held();
    res.setHeader("server-timing", "queue;dur=0");
    res.writeHead(200, { "content-type": "text/event-stream", "content-length": "999" });
    res.statusMessage = "Fine";
    res.flushHeaders();
    expect(headHeld(head)).toBe(true);
    answerInstead(head, 503, { "content-type": "application/json", "x-preempted": "1" }, '{"error":{}}');
    expect(headHeld(head)).toBe(false);
    const text = sent(res);
    expect(text).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(text).toContain("x-preempted: 1");
    expect(text).toContain("server-timing: queue;dur=0");
    expect(text).not.toContain("text/event-stream");
    expect(text).not.toContain("999");
    expect(text.endsWith('{"error":{}}')).toBe(true);
    // The handler goes on as if nothing happened: nothing it does throws or reaches the client.
    res.setHeader("x-late", "1");
    res.writeHead(200);
    let called = false;
    res.write("data: 1\n\n", () => {
      called = true;
    });
    res.end();
    await Promise.resolve();
    expect(called).toBe(true);
    expect(sent(res)).toBe(text);
  });

  it("does nothing once the handler's first byte has gone", () => {
    const { res, head } = held();
    res.write("a");
    answerInstead(head, 503, {}, "preempted");
    expect(sent(res)).not.toContain("503");
  });
});

type Op =
  | { readonly kind: "setHeader"; readonly value: string }
  | { readonly kind: "writeHead"; readonly status: number; readonly value: string }
  | { readonly kind: "flushHeaders" }
  | { readonly kind: "write"; readonly chunk: string }
  | { readonly kind: "end"; readonly chunk: string };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("setHeader" as const), value: fc.constantFrom("a", "b") }),
  fc.record({
    kind: fc.constant("writeHead" as const),
    status: fc.constantFrom(200, 201, 404),
    value: fc.constantFrom("c", "d"),
  }),
  fc.record({ kind: fc.constant("flushHeaders" as const) }),
  fc.record({ kind: fc.constant("write" as const), chunk: fc.constantFrom("x", "y") }),
  fc.record({ kind: fc.constant("end" as const), chunk: fc.constantFrom("", "z") }),
);

function attempt(step: () => void): void {
  try {
    step();
  } catch {
    // Node refuses a header once the head has gone (the held response may not have sent it yet)
  }
}

function apply(res: ServerResponse, step: Op): void {
  if (step.kind === "setHeader") res.setHeader("x-handler", step.value);
  else if (step.kind === "writeHead") res.writeHead(step.status, { "x-handler": step.value });
  else if (step.kind === "flushHeaders") res.flushHeaders();
  else if (step.kind === "write") res.write(step.chunk);
  else res.end(step.chunk);
}

describe("holdHead and answerInstead, whatever the handler does and whenever the stop comes", () => {
  it("send either the whole 503 and nothing of the handler's, or the handler's response untouched", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 8 }), fc.nat(8), (ops, stopAt) => {
        const { res, permit, head } = held();
        const real = response(); // the same steps on a response nobody holds, as Node sends them
        let answered = false;
        let ended = false;
        for (const [index, step] of ops.entries()) {
          if (index === stopAt && headHeld(head)) {
            answerInstead(head, 503, { "x-preempted": "1" }, "preempted");
            answered = true;
          }
          if (ended) break; // a handler ends its response once
          // Once answered, nothing the handler does throws; before, Node's own rules apply.
          if (answered) expect(() => apply(res, step)).not.toThrow();
          else attempt(() => apply(res, step));
          attempt(() => apply(real, step));
          ended = step.kind === "end";
        }
        const text = sent(res);
        if (answered) {
          expect(text).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
          expect(text).not.toContain("x-handler");
          expect(text.endsWith("preempted")).toBe(true);
          return;
        }
        const first = ops.findIndex((s) => s.kind === "write" || s.kind === "end");
        if (first < 0) {
          expect(text).toBe(""); // no body byte: nothing has gone, the request is still preemptible
          expect(headHeld(head)).toBe(true);
          expect(permit.preemptible).toBe(true);
          return;
        }
        expect(permit.preemptible).toBe(false);
        // The body is what Node sends for the same steps without holding, and so is the status unless the
        // head was set again after Node had sent it (held, the last writeHead() before the body counts).
        const bodyOf = (raw: string) => raw.slice(raw.indexOf("\r\n\r\n") + 4);
        const statusOf = (raw: string) => raw.slice(0, raw.indexOf("\r\n"));
        expect(bodyOf(text)).toBe(bodyOf(sent(real)));
        const before = ops.slice(0, first);
        const gone = before.findIndex((s) => s.kind === "writeHead" || s.kind === "flushHeaders");
        if (!before.slice(gone + 1).some((s) => gone >= 0 && s.kind === "writeHead"))
          expect(statusOf(text)).toBe(statusOf(sent(real)));
      }),
      { numRuns: 500 },
    );
  });
});
