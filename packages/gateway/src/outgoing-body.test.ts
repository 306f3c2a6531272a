import { describe, expect, it } from "vitest";
import { outgoingBody } from "./outgoing-body.js";

const body = { model: "llama", messages: [] };
const bytes = new TextEncoder().encode(JSON.stringify(body));

describe("outgoingBody", () => {
  it("forwards the client's bytes untouched when nothing changes", () => {
    expect(
      outgoingBody(body, bytes, { name: "llama", upstreamModel: "llama", passPriority: undefined }, "batch"),
    ).toBe(bytes);
  });

  it("renames the model and passes the priority's value (vLLM's `priority`)", () => {
    const passPriority = { field: "priority", values: { interactive: 0, batch: 10 } };
    const sent = outgoingBody(
      body,
      bytes,
      { name: "llama", upstreamModel: "meta/llama-3", passPriority },
      "batch",
    );
    expect(JSON.parse(sent as string)).toEqual({ model: "meta/llama-3", messages: [], priority: 10 });
    const unmapped = { field: "priority", values: { interactive: 0 } };
    expect(
      outgoingBody(body, bytes, { name: "llama", upstreamModel: "llama", passPriority: unmapped }, "batch"),
    ).toBe(bytes);
  });
});
