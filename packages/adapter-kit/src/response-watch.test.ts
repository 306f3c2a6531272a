import { createScheduler } from "@llm-scheduler/core";
import { describe, expect, it, vi } from "vitest";
import { ResponseWatch, releaseWhenEnded } from "./response-watch.js";
import { FakeNodeResponse } from "./testing.js";

describe("ResponseWatch", () => {
  it("calls back once when the response has been sent, without aborting", () => {
    const response = new FakeNodeResponse();
    const watch = new ResponseWatch(response);
    const ended = vi.fn();
    watch.whenEnded(ended);
    expect(ended).not.toHaveBeenCalled();
    response.finish();
    expect(ended).toHaveBeenCalledTimes(1);
    expect(watch.ended).toBe(true);
    expect(watch.signal.aborted).toBe(false);
  });

  it("aborts its signal and calls back when the client goes away first", () => {
    const response = new FakeNodeResponse();
    const watch = new ResponseWatch(response);
    const ended = vi.fn();
    watch.whenEnded(ended);
    response.drop();
    response.finish();
    expect(ended).toHaveBeenCalledTimes(1);
    expect(watch.signal.aborted).toBe(true);
    expect(String(watch.signal.reason)).toContain("client closed");
  });

  it("calls back at once when asked after the end", () => {
    const response = new FakeNodeResponse();
    const watch = new ResponseWatch(response);
    response.finish();
    const ended = vi.fn();
    watch.whenEnded(ended);
    expect(ended).toHaveBeenCalledTimes(1);
  });

  it("sees a connection that was already gone when the middleware started", () => {
    const response = new FakeNodeResponse();
    response.destroyed = true;
    const watch = new ResponseWatch(response);
    expect(watch.ended).toBe(true);
    expect(watch.signal.aborted).toBe(true);
  });

  it("tells whether the response was sent", () => {
    const sent = new FakeNodeResponse();
    const gone = new FakeNodeResponse();
    const seen: boolean[] = [];
    new ResponseWatch(sent).whenEnded((wasSent) => seen.push(wasSent));
    new ResponseWatch(gone).whenEnded((wasSent) => seen.push(wasSent));
    sent.finish();
    gone.drop();
    expect(seen).toEqual([true, false]);
  });
});

describe("releaseWhenEnded", () => {
  it("aborts the permit's signal when the client leaves, then frees the slot", () => {
    const scheduler = createScheduler({ maxConcurrency: 1 });
    const permit = scheduler.tryAcquire()!;
    const response = new FakeNodeResponse();
    releaseWhenEnded(new ResponseWatch(response), permit, () => undefined);
    const signal = permit.signal;
    response.drop();
    expect(signal.aborted).toBe(true);
    expect(permit.held).toBe(false);
    expect(scheduler.metrics()).toMatchObject({ running: 0, failed: 1 });
  });

  it("frees the slot without aborting when the response was sent", () => {
    const scheduler = createScheduler({ maxConcurrency: 1 });
    const permit = scheduler.tryAcquire()!;
    const response = new FakeNodeResponse();
    releaseWhenEnded(new ResponseWatch(response), permit, () => undefined);
    response.finish();
    expect(permit.signal.aborted).toBe(false);
    expect(scheduler.metrics()).toMatchObject({ running: 0, completed: 1 });
  });
});
