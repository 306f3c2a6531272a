import { SchedulerError } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { resolveRedisOptions } from "./options.js";

describe("resolveRedisOptions", () => {
  it("fills in the defaults", () => {
    const options = resolveRedisOptions({ instanceId: "a1" });
    expect(options).toMatchObject({
      url: "redis://127.0.0.1:6379",
      prefix: "llm:",
      leaseMs: 10_000,
      pollMs: 1_000,
      onStoreError: "fail-closed",
      agingClock: "redis",
      localMaxQueue: 1_000,
      instanceId: "a1",
    });
  });

  it("ignores undefined fields and draws a random instance id", () => {
    const a = resolveRedisOptions({ leaseMs: undefined, instanceId: undefined });
    const b = resolveRedisOptions();
    expect(a.leaseMs).toBe(10_000);
    expect(a.instanceId).toMatch(/^[0-9a-f]{16}$/);
    expect(a.instanceId).not.toBe(b.instanceId);
  });

  it.each([
    [{ leaseMs: 0 }, "Expected `leaseMs` to be an integer from 100 to 3600000, got `0` (number)"],
    [
      { leaseMs: 2 ** 31 },
      "Expected `leaseMs` to be an integer from 100 to 3600000, got `2147483648` (number)",
    ],
    [{ pollMs: 2.5 }, "Expected `pollMs` to be an integer from 10 to 3600000, got `2.5` (number)"],
    [{ pollMs: Number.POSITIVE_INFINITY }, "Expected `pollMs` to be an integer from 10 to 3600000"],
    [
      { commandTimeoutMs: 0 },
      "Expected `commandTimeoutMs` to be an integer from 1 to 600000, got `0` (number)",
    ],
    [{ commandTimeoutMs: 1e9 }, "Expected `commandTimeoutMs` to be an integer from 1 to 600000"],
    [{ localMaxQueue: 1e12 }, "Expected `localMaxQueue` to be an integer from 1 to 10000000"],
    [{ expectedInstances: 1e6 }, "Expected `expectedInstances` to be an integer from 1 to 10000"],
    [{ prefix: "" }, "Expected `prefix` to be a non-empty string of at most 128 characters, got `` (string)"],
    [{ url: "http://x" }, "Expected `url` to be a redis:// or rediss:// URL, got `http://x` (string)"],
    [{ onStoreError: "open" }, 'Expected `onStoreError` to be "fail-closed" or "local", got `open` (string)'],
    [
      { onStoreError: "local" },
      'Expected `expectedInstances` to be a positive integer when `onStoreError` is "local", got `undefined` (undefined)',
    ],
    [
      { onStoreError: "local", expectedInstances: 0 },
      "Expected `expectedInstances` to be an integer from 1 to 10000, got `0` (number)",
    ],
    [{ agingClock: "wall" }, 'Expected `agingClock` to be "redis" or "scheduler", got `wall` (string)'],
    [
      { instanceId: "a:b" },
      "Expected `instanceId` to be 1 to 64 letters, digits, `-` or `_`, got `a:b` (string)",
    ],
    [{ client: {} }, "Expected `client` to be an ioredis client, got `{}` (object)"],
    [{ onError: "log" }, "Expected `onError` to be a function, got `log` (string)"],
    [{ onStatusChange: 1 }, "Expected `onStatusChange` to be a function, got `1` (number)"],
    [
      { leaseMS: 5 },
      "Unknown option `leaseMS`; did you mean `leaseMs`? (known: `url`, `client`, `cluster`, `prefix`",
    ],
    [{ comandTimeout: 5 }, "Unknown option `comandTimeout`; did you mean `commandTimeoutMs`?"],
  ])("rejects %j with a message naming the field", (options, message) => {
    // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input
    const attempt = () => resolveRedisOptions(options as any);
    expect(attempt).toThrow(message);
    expect(attempt).toThrow(SchedulerError);
  });

  it("keeps the store going when the callbacks throw", () => {
    const errors: unknown[] = [];
    const options = resolveRedisOptions({
      onError: (error) => {
        errors.push(error);
        throw new Error("logger down");
      },
      onStatusChange: () => {
        throw new Error("listener broke");
      },
    });
    expect(() => options.onError(new Error("lost"))).not.toThrow();
    expect(() => options.onStatusChange("local", "connected")).not.toThrow();
    expect(errors.map((error) => (error as Error).message)).toEqual(["lost", "listener broke"]);
  });

  it("never shows a password from the url in its messages", () => {
    const urls = ["http://user:s3cret@host:6379", "redis:/user:s3cret@host", "https://:s3c@ret@host/0"];
    for (const url of urls) {
      let message = "";
      try {
        resolveRedisOptions({ url });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain("Expected `url` to be a redis:// or rediss:// URL");
      expect(message).not.toMatch(/s3c|ret/);
      expect(message).toContain("***@host");
    }
    const client = { evalsha: () => {}, duplicate: () => {} };
    // biome-ignore lint/suspicious/noExplicitAny: a stand-in client
    expect(() => resolveRedisOptions({ url: "redis://u:s3cret@x", client: client as any })).toThrow(
      "got `redis://***@x` (string)",
    );
    const otherClient = { options: { password: "s3cret" }, sendCommand: () => {} };
    // biome-ignore lint/suspicious/noExplicitAny: a client of another library
    expect(() => resolveRedisOptions({ client: otherClient as any })).toThrow(
      "Expected `client` to be an ioredis client, got `{}` (object)",
    );
  });

  it("refuses both a url and a client", () => {
    const client = { evalsha: () => {}, duplicate: () => {} };
    // biome-ignore lint/suspicious/noExplicitAny: a stand-in client
    expect(() => resolveRedisOptions({ url: "redis://x", client: client as any })).toThrow(
      "Expected `url` to be left out when `client` is given",
    );
  });
});
