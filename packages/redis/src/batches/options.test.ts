import { describe, expect, it } from "vitest";
import { resolveBatchStoreOptions } from "./options.js";

const client = { evalsha: () => {}, duplicate: () => {} } as never;

describe("resolveBatchStoreOptions", () => {
  it("fills in the defaults, the URL only when no client is given", () => {
    expect(resolveBatchStoreOptions()).toEqual({
      url: "redis://127.0.0.1:6379",
      client: undefined,
      prefix: "llm:",
      resultTtlMs: 604_800_000,
      fileTtlMs: 2_592_000_000,
      commandTimeoutMs: 5_000,
    });
    expect(resolveBatchStoreOptions({ client, prefix: "x:" })).toMatchObject({ url: undefined, client });
  });

  it.each([
    [{ resultTtlMs: 999 }, "Expected `resultTtlMs` to be an integer from 1000 to 31536000000, got `999`"],
    [{ commandTimeoutMs: 0 }, "Expected `commandTimeoutMs` to be an integer from 1 to 600000, got `0`"],
    [{ prefix: "" }, "Expected `prefix` to be a non-empty string of at most 128 characters"],
    [{ client: {} }, "Expected `client` to be an ioredis client, got `{}` (object)"],
    [{ url: "http://h" }, "Expected `url` to be a redis:// or rediss:// URL, got `http://h`"],
    [{ fileTtl: 1 }, "Unknown option `fileTtl`; did you mean `fileTtlMs`?"],
  ])("refuses %o with INVALID_OPTION", (options, message) => {
    expect(() => resolveBatchStoreOptions(options as never)).toThrow(
      expect.objectContaining({ code: "INVALID_OPTION", message: expect.stringContaining(message) }),
    );
  });

  it("refuses a URL beside a client without showing its password", () => {
    const call = () => resolveBatchStoreOptions({ url: "redis://user:s3cret@h:6379", client });
    expect(call).toThrow("Expected `url` to be left out when `client` is given");
    expect(call).not.toThrow(/s3cret/);
  });
});
