import { nodeHeaderReader } from "@llm-scheduler/adapter-kit";
import { FakeNodeResponse } from "@llm-scheduler/adapter-kit/testing";
import { describe, expect, it } from "vitest";
import { nodeBindingsOf } from "./node-bindings.js";

class FakeOutgoing extends FakeNodeResponse {
  setHeader(): this {
    return this;
  }
}

describe("nodeBindingsOf", () => {
  it("finds @hono/node-server's incoming and outgoing, and reads headers from Node's parsed ones", () => {
    const outgoing = new FakeOutgoing();
    const incoming = { headers: { "x-priority": "batch", "x-list": ["a", "b"] } };
    const bindings = nodeBindingsOf({ incoming, outgoing });
    expect(bindings?.outgoing).toBe(outgoing);
    const header = nodeHeaderReader(bindings!.incoming.headers);
    expect(header("x-priority")).toBe("batch");
    expect(header("x-list")).toBe("a");
    expect(header("x-request-id")).toBeUndefined();
  });

  it("finds nothing on other runtimes or in app.request()", () => {
    expect(nodeBindingsOf(undefined)).toBeUndefined();
    expect(nodeBindingsOf({})).toBeUndefined();
    expect(nodeBindingsOf({ outgoing: {}, incoming: { headers: {} } })).toBeUndefined();
    expect(nodeBindingsOf({ outgoing: new FakeOutgoing() })).toBeUndefined();
  });
});
