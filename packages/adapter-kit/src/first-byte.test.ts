import { createScheduler, type SchedulerEvents, VirtualClock } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { ResponseWatch } from "./response-watch.js";
import { FakeNodeResponse } from "./testing.js";

/** A fake response with Node's writing methods, recording what reached them. */
class WritingResponse extends FakeNodeResponse {
  readonly written: unknown[] = [];

  write(chunk: unknown): boolean {
    this.written.push(chunk);
    return true;
  }

  end(chunk?: unknown): this {
    if (chunk !== undefined) this.written.push(chunk);
    this.finish();
    return this;
  }
}

function setUp(listen: boolean) {
  const clock = new VirtualClock();
  const scheduler = createScheduler({ maxConcurrency: 1, clock });
  const seen: Array<SchedulerEvents["firstByte"]> = [];
  if (listen) scheduler.on("firstByte", (event) => seen.push(event));
  const response = new WritingResponse();
  const watch = new ResponseWatch(response);
  watch.hold(scheduler.tryAcquire({ id: "r1" })!);
  watch.releaseAtEnd();
  return { clock, scheduler, seen, response };
}

describe("ResponseWatch and the first byte", () => {
  it("reports the first write once, and every chunk still reaches the response", () => {
    const { clock, seen, response } = setUp(true);
    clock.advance(120);
    response.write("data: 1\n\n");
    clock.advance(30);
    response.write("data: 2\n\n");
    response.end("data: [DONE]\n\n");
    expect(response.written).toEqual(["data: 1\n\n", "data: 2\n\n", "data: [DONE]\n\n"]);
    expect(seen).toMatchObject([{ id: "r1", waitMs: 0, ttfbMs: 120 }]);
  });

  it("reports a response sent with end() alone", () => {
    const { clock, scheduler, seen, response } = setUp(true);
    clock.advance(7);
    response.end("{}");
    expect(seen).toMatchObject([{ id: "r1", ttfbMs: 7 }]);
    expect(scheduler.metrics()).toMatchObject({ running: 0, completed: 1 });
  });

  it("leaves the response's methods alone when nobody listens", () => {
    const { seen, response } = setUp(false);
    expect(Object.hasOwn(response, "write")).toBe(false);
    response.end("{}");
    expect(seen).toEqual([]);
  });
});
