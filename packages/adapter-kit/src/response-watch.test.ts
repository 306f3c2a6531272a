import { createScheduler } from "@llm-scheduler/core";
import { describe, expect, it, vi } from "vitest";
import { ResponseWatch } from "./response-watch.js";
import { FakeNodeResponse } from "./testing.js";

function held() {
  const scheduler = createScheduler({ maxConcurrency: 1 });
  const permit = scheduler.tryAcquire()!;
  const response = new FakeNodeResponse();
  const watch = new ResponseWatch(response);
  watch.hold(permit);
  return { scheduler, permit, response, watch };
}

describe("ResponseWatch", () => {
  it("ends without aborting when the response has been sent", () => {
    const response = new FakeNodeResponse();
    const watch = new ResponseWatch(response);
    expect(watch.ended).toBe(false);
    response.finish();
    expect(watch.ended).toBe(true);
    expect(watch.signal.aborted).toBe(false);
  });

  it("ends without aborting when the response was sent but closed before Node detached its socket", () => {
    const response = new FakeNodeResponse();
    const watch = new ResponseWatch(response);
    response.writableEnded = true;
    response.writableFinished = true;
    response.drop(); // the connection closed with the socket still attached
    expect(watch.ended).toBe(true);
    expect(watch.signal.aborted).toBe(false);
  });

  it("aborts its signal when the client goes away first", () => {
    const response = new FakeNodeResponse();
    const watch = new ResponseWatch(response);
    const { signal } = watch;
    response.drop();
    expect(signal.aborted).toBe(true);
    expect(String(signal.reason)).toContain("client closed");
  });

  it("sees a connection that was already gone when the middleware started", () => {
    const response = new FakeNodeResponse();
    response.destroyed = true;
    const watch = new ResponseWatch(response);
    expect(watch.ended).toBe(true);
    expect(watch.signal.aborted).toBe(true);
  });

  it("aborts the held permit's signal when the client leaves, and holds the slot until released", () => {
    const { scheduler, permit, response, watch } = held();
    response.drop();
    expect(permit.signal.aborted).toBe(true);
    expect(permit.held).toBe(true); // the handler is still winding down its upstream call
    watch.releaseAtEnd();
    expect(permit.held).toBe(false);
    expect(scheduler.metrics()).toMatchObject({ running: 0, failed: 1 });
  });

  it("frees the slot without aborting once the response has been sent", () => {
    const { scheduler, permit, response, watch } = held();
    watch.releaseAtEnd();
    expect(permit.held).toBe(true);
    response.finish();
    expect(permit.signal.aborted).toBe(false);
    expect(scheduler.metrics()).toMatchObject({ running: 0, completed: 1 });
  });

  it("counts a sent 5xx as failed, and a given failure as failed whatever was sent", () => {
    const first = held();
    first.watch.releaseAtEnd();
    first.response.finish(502);
    expect(first.scheduler.metrics()).toMatchObject({ completed: 0, failed: 1 });
    const second = held();
    second.watch.releaseAtEnd(new Error("handler threw"));
    second.response.finish(200);
    expect(second.scheduler.metrics()).toMatchObject({ completed: 0, failed: 1 });
  });

  it("aborts a permit held after the client had already gone", () => {
    const scheduler = createScheduler({ maxConcurrency: 1 });
    const response = new FakeNodeResponse();
    const watch = new ResponseWatch(response);
    response.drop();
    const permit = scheduler.tryAcquire()!;
    watch.hold(permit);
    expect(permit.signal.aborted).toBe(true);
    watch.releaseAtEnd();
    expect(scheduler.metrics().running).toBe(0);
  });

  describe("endsWithResponse", () => {
    it("releases a response sent as usual at its close, without calling stillWorking", () => {
      const { scheduler, response, watch } = held();
      const stillWorking = vi.fn();
      watch.endsWithResponse(stillWorking);
      expect(scheduler.metrics().running).toBe(1);
      response.finish(503);
      expect(stillWorking).not.toHaveBeenCalled();
      expect(scheduler.metrics()).toMatchObject({ running: 0, failed: 1 }); // a 5xx sent
    });

    it("releases a response ended as its client left, counted as failed", () => {
      const { scheduler, response, watch } = held();
      const stillWorking = vi.fn();
      watch.endsWithResponse(stillWorking);
      response.writableEnded = true; // end() was called, the bytes never left
      response.drop();
      expect(stillWorking).not.toHaveBeenCalled();
      expect(scheduler.metrics()).toMatchObject({ running: 0, failed: 1 });
    });

    it("releases a response destroyed with an error, with that error", () => {
      const { scheduler, response, watch } = held();
      const stillWorking = vi.fn();
      watch.endsWithResponse(stillWorking);
      response.errored = new Error("the upstream broke");
      response.drop();
      expect(stillWorking).not.toHaveBeenCalled();
      expect(scheduler.metrics()).toMatchObject({ running: 0, failed: 1 });
    });

    it("asks the adapter to watch the handler when the client leaves first, and holds the slot until it ends", () => {
      const { scheduler, permit, response, watch } = held();
      const stillWorking = vi.fn();
      watch.endsWithResponse(stillWorking);
      response.drop();
      expect(stillWorking).toHaveBeenCalledWith(response, watch);
      expect(permit.signal.aborted).toBe(true);
      expect(scheduler.metrics().running).toBe(1); // the handler may still be talking to the upstream
      watch.releaseAtEnd();
      expect(scheduler.metrics()).toMatchObject({ running: 0, failed: 1 });
    });

    it("settles at once when the response had closed already", () => {
      const { scheduler, response, watch } = held();
      response.finish();
      watch.endsWithResponse(vi.fn());
      expect(scheduler.metrics()).toMatchObject({ running: 0, completed: 1 });
    });

    it("leaves the release to releaseAtEnd() alone after endsWithResponse(null)", () => {
      const { scheduler, response, watch } = held();
      const stillWorking = vi.fn();
      watch.endsWithResponse(stillWorking);
      watch.endsWithResponse(null); // the adapter answered itself: the response's end is not the handler's
      response.finish(504);
      expect(stillWorking).not.toHaveBeenCalled();
      expect(scheduler.metrics().running).toBe(1);
      watch.releaseAtEnd();
      expect(scheduler.metrics()).toMatchObject({ running: 0, failed: 1 });
    });
  });
});
