import { ErrorCode, SchedulerError } from "@llm-scheduler/core";
import { describe, expect, it, vi } from "vitest";
import { raceRunTimeout, runTimeoutOf } from "./run-timeout.js";

const timeout = () => new SchedulerError(ErrorCode.RUN_TIMEOUT, "The run timed out");

describe("raceRunTimeout", () => {
  it("settles early once the run timeout has been answered", async () => {
    const controller = new AbortController();
    const work = new Promise<string>(() => undefined);
    const answer = vi.fn(() => true);
    const raced = raceRunTimeout(work, controller.signal, true, answer);
    controller.abort(timeout());
    await expect(raced).resolves.toBeUndefined();
    expect(answer).toHaveBeenCalledWith(expect.objectContaining({ code: "RUN_TIMEOUT" }));
  });

  it("waits for the work when the answer came too late, and ignores other aborts", async () => {
    const controller = new AbortController();
    let finish!: (value: string) => void;
    const work = new Promise<string>((resolve) => {
      finish = resolve;
    });
    const raced = raceRunTimeout(work, controller.signal, true, () => false);
    controller.abort(timeout());
    finish("done");
    await expect(raced).resolves.toBe("done");
    const other = new AbortController();
    other.abort(new Error("client gone"));
    expect(runTimeoutOf(other.signal)).toBeUndefined();
  });

  it("is the work itself when there is no run timeout", () => {
    const work = Promise.resolve(1);
    expect(raceRunTimeout(work, new AbortController().signal, false, () => true)).toBe(work);
  });
});
