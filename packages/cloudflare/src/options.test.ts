import { SchedulerError } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { type ObjectNamespace, resolveDurableObjectOptions } from "./options.js";

const namespace: ObjectNamespace = {
  idFromName: () => "id",
  get: () => ({ fetch: async () => new Response("{}") }),
};

describe("resolveDurableObjectOptions", () => {
  it("fills the defaults", () => {
    expect(resolveDurableObjectOptions({ namespace })).toMatchObject({
      name: "default",
      leaseMs: 30_000,
      waitMs: 10_000,
      agingClock: "object",
    });
  });

  it.each([
    [{}, "Expected `namespace` to be a Durable Object namespace binding"],
    [
      { namespace, leaseMs: 10 },
      "Expected `leaseMs` to be an integer from 500 to 3600000, got `10` (number)",
    ],
    [{ namespace, waitMs: 60_001 }, "Expected `waitMs` to be an integer from 100 to 60000"],
    [{ namespace, name: "" }, "Expected `name` to be a string of 1 to 256 characters"],
    [{ namespace, agingClock: "redis" }, 'Expected `agingClock` to be "object" or "scheduler"'],
    [{ namespace, onError: 1 }, "Expected `onError` to be a function"],
    [{ namespace, leaseMS: 1_000 }, "Unknown option `leaseMS`; did you mean `leaseMs`?"],
  ])("refuses %j with INVALID_OPTION", (options, message) => {
    const attempt = () => resolveDurableObjectOptions(options as never);
    expect(attempt).toThrow(SchedulerError);
    expect(attempt).toThrow(message);
  });

  it("keeps a throwing onError from breaking the store", () => {
    const { onError } = resolveDurableObjectOptions({
      namespace,
      onError: () => {
        throw new Error("boom");
      },
    });
    expect(() => onError(new Error("x"))).not.toThrow();
  });
});
