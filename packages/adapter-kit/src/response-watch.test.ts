import { describe, expect, it, vi } from "vitest";
import { ResponseWatch } from "./response-watch.js";
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
});
