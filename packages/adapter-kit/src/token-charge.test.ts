import { createScheduler, ErrorCode, VirtualClock } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { resolveAdapterOptions } from "./options.js";
import { acquireSlot } from "./slot.js";
import { estimateTokensFromLength } from "./tokens.js";

interface FakeRequest {
  readonly headers: Record<string, string>;
  readonly body?: unknown;
}

const headerOf = (request: FakeRequest) => (name: string) => request.headers[name];
const client = new AbortController();

/** The tokens the tenant "default" has in flight, over all priorities. */
function inFlight(scheduler: ReturnType<typeof createScheduler>): number {
  const rows = scheduler.metrics().tenants.filter((row) => row.tenant === "default");
  return rows.reduce((sum, row) => sum + (row.tokensInFlight ?? 0), 0);
}

describe("estimateTokensFromLength", () => {
  it("charges the declared bytes / 4 plus the default output bound", () => {
    expect(estimateTokensFromLength("4000", undefined, 1_024)).toBe(2_024);
    expect(estimateTokensFromLength(" 5 ", null, 0)).toBe(2);
  });

  it("charges the default output bound for a body of unknown length, nothing for no body", () => {
    expect(estimateTokensFromLength(undefined, "chunked", 512)).toBe(512);
    expect(estimateTokensFromLength(null, null, 512)).toBe(0);
    expect(estimateTokensFromLength("0", undefined, 512)).toBe(0);
    expect(estimateTokensFromLength("12, 12", undefined, 512)).toBe(512);
  });
});

describe("the token estimate of a body the adapter does not read", () => {
  /** A bucket of 1,000 tokens that does not refill while the test runs (virtual clock). */
  function bucketed() {
    const scheduler = createScheduler({
      clock: new VirtualClock(),
      maxConcurrency: 100,
      tenantDefaults: { tokensPerMinute: 1_000, burstTokens: 1_000 },
    });
    // The body reader finds nothing, as Express's `req.body` without a JSON parser.
    const config = resolveAdapterOptions<FakeRequest, never>(
      { scheduler, defaultMaxTokens: 100 },
      (request) => request.body,
    );
    return { scheduler, config };
  }

  it("is charged up front from content-length and defaultMaxTokens, so the bucket holds", async () => {
    const { scheduler, config } = bucketed();
    const request = { headers: { "content-length": "1200" } }; // 300 + 100 = 400 tokens each
    const granted = [];
    const refused = [];
    for (let i = 0; i < 10; i++) {
      try {
        granted.push(await acquireSlot(config, request, headerOf(request), client));
      } catch (error) {
        refused.push(error);
      }
    }
    expect(granted).toHaveLength(2); // 1,000 covers two charges of 400, not a third
    expect(refused).toHaveLength(8);
    expect(refused[0]).toMatchObject({ code: ErrorCode.RATE_LIMITED });
    expect(inFlight(scheduler)).toBe(800);
    for (const slot of granted) slot.permit.release();
  });

  it("still reads a parsed body first, and charges nothing for a request without a body", async () => {
    const { scheduler, config } = bucketed();
    const parsed = { headers: { "content-length": "40000" }, body: { messages: [], max_tokens: 7 } };
    const slot = await acquireSlot(config, parsed, headerOf(parsed), client);
    expect(inFlight(scheduler)).toBe(7);
    slot.permit.release();
    const bare = { headers: {} };
    const other = await acquireSlot(config, bare, headerOf(bare), client);
    expect(inFlight(scheduler)).toBe(0);
    other.permit.release();
  });
});
