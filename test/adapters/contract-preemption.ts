import { expect, it } from "vitest";
import { as, type ContractHarness } from "./contract-harness.js";
import { until } from "./probe.js";

/** One slot; `interactive` (the default) preempts `batch` (`x-plan: free` with the mapped app). */
const preempting = {
  maxConcurrency: 1,
  priorities: { interactive: { preempts: ["batch"] }, batch: {} },
} as const;
const free = { "x-plan": "free" };

/**
 * Preemption through every adapter: a batch request stopped before its first byte answers 503 with
 * `Retry-After: 1` and `x-preempted: 1`, and its slot goes to the interactive request; a batch response
 * that has sent its first byte is never stopped.
 */
export function preemptionContract(h: ContractHarness): void {
  it("answers a request preempted before its first byte with 503, Retry-After: 1 and x-preempted", async () => {
    const { fetch } = await h.open(preempting, { mapped: true });
    const victim = fetch("/wait", as("b", free));
    await until(() => h.probe.ran.includes("b"), "the batch request to run");
    const chat = fetch("/slot", as("c"));
    const answer = await victim;
    expect(answer.status).toBe(503);
    expect(answer.headers.get("retry-after")).toBe("1");
    expect(answer.headers.get("x-preempted")).toBe("1");
    expect(await answer.json()).toMatchObject({ error: { code: "PREEMPTED", type: "server_unavailable" } });
    expect(h.probe.aborted.get("b")).toMatchObject({ code: "PREEMPTED" });
    const served = await chat;
    expect(served.status).toBe(200);
    expect(await served.json()).toMatchObject({ id: "c", priority: "interactive" });
    expect(h.probe.ran).toEqual(["b", "c"]);
    await until(() => h.scheduler.metrics().running === 0, "every slot to be released");
    expect(h.scheduler.metrics().priorities.batch).toMatchObject({ preempted: 1, completed: 0 });
  });

  it("never preempts a response that has sent its first byte", async () => {
    const { fetch } = await h.open(preempting, { mapped: true });
    const stream = await fetch("/stream", as("s", free));
    const reader = stream.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("data: ");
    const chat = fetch("/slot", as("c"));
    await h.queued(1);
    let text = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      text += new TextDecoder().decode(chunk.value);
    }
    expect(stream.status).toBe(200);
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    const served = await chat;
    expect(served.status).toBe(200);
    expect(await served.json()).toMatchObject({ id: "c" });
    expect(h.scheduler.metrics().priorities.batch).toMatchObject({ preempted: 0 });
  });
}
