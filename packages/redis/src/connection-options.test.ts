import { SchedulerError } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { keyPrefix } from "./connection-options.js";
import { resolveRedisOptions } from "./options.js";

describe("keyPrefix", () => {
  it("keeps a prefix as it is on a standalone Redis", () => {
    expect(keyPrefix("llm:", false)).toBe("llm:");
  });

  it.each([
    ["{llm}:", "{llm}:"],
    ["pool:{a}:", "pool:{a}:"],
    ["llm:", "{llm:}"],
    ["{}llm:", "{{}llm:}"], // an empty tag hashes the whole key: wrapped
    ["llm}{", "{llm}{}"],
  ])("on a cluster, %j becomes %j (one hash slot per prefix)", (prefix, expected) => {
    expect(keyPrefix(prefix, true)).toBe(expected);
  });
});

describe("the cluster option", () => {
  it("opens a cluster with the prefix in a hash tag, and no default url", () => {
    const resolved = resolveRedisOptions({ cluster: ["redis://127.0.0.1:7000"], prefix: "gpt:" });
    expect(resolved).toMatchObject({ cluster: ["redis://127.0.0.1:7000"], prefix: "{gpt:}", url: undefined });
  });

  it.each([
    [{ cluster: [] }, "Expected `cluster` to be an array of 1 to 64 redis:// or rediss:// URLs"],
    [{ cluster: ["http://x"] }, "Expected `cluster` to be an array"],
    [{ cluster: "redis://127.0.0.1:7000" }, "Expected `cluster` to be an array"],
    [
      { url: "redis://127.0.0.1:6379", cluster: ["redis://a:1"] },
      "Expected `url` to be left out when `cluster`",
    ],
  ])("rejects %j", (options, message) => {
    const attempt = () => resolveRedisOptions(options as never);
    expect(attempt).toThrow(SchedulerError);
    expect(attempt).toThrow(message);
  });

  it("never shows a password from a node URL", () => {
    const attempt = () => resolveRedisOptions({ cluster: ["redis://user:s3cret@host:1", "ftp://x"] });
    expect(attempt).toThrow("redis://***@host:1");
    expect(attempt).not.toThrow(/s3cret/);
  });
});
