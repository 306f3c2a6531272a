import { expect, it } from "vitest";
import { as, type ContractHarness } from "./contract-harness.js";
import { until } from "./probe.js";

/**
 * What every adapter must do under faults and abuse: clients that leave mid-response, run timeouts,
 * handlers that never answer or whose body breaks, hostile headers, and credentials in the request.
 *
 * @example
 * faultContract(contractHarness(startExpressApp));
 */
export function faultContract(h: ContractHarness): void {
  it("aborts the exposed signal when the client leaves while the handler runs", async () => {
    const { fetch } = await h.open();
    const client = new AbortController();
    const gone = fetch("/wait", { ...as("a"), signal: client.signal }).catch(() => undefined);
    await until(() => h.probe.ran.includes("a"), "a to run");
    client.abort();
    await gone;
    await until(() => h.probe.aborted.has("a"), "a's signal to abort");
    await until(() => h.scheduler.metrics().running === 0, "a's slot to be released");
    expect(await (await fetch("/slot", as("b"))).json()).toMatchObject({ id: "b" });
  });

  it("aborts the signal and frees the slot when the client leaves in the middle of a stream", async () => {
    const { fetch } = await h.open();
    h.probe.streamChunks = 200;
    const client = new AbortController();
    const response = await fetch("/stream", { ...as("s"), signal: client.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("data: ");
    client.abort();
    await reader.read().catch(() => undefined);
    await until(() => h.probe.aborted.has("s"), "the stream's signal to abort");
    await until(() => h.scheduler.metrics().running === 0, "the stream's slot to be released");
    expect(h.scheduler.metrics().completed).toBe(0);
  });

  it("answers a run timeout with 504 and an OpenAI-style body, and aborts the handler's signal", async () => {
    const { fetch } = await h.open({}, { timeoutMs: 30 });
    const answer = await fetch("/wait", as("slow"));
    expect(answer.status).toBe(504);
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await answer.json()).toEqual({
      error: { message: expect.any(String), type: "timeout", code: "RUN_TIMEOUT", param: null },
    });
    expect(h.probe.aborted.get("slow")).toMatchObject({ code: "RUN_TIMEOUT" });
    await until(() => h.scheduler.metrics().running === 0, "the slot to be released");
    expect(h.scheduler.metrics()).toMatchObject({ completed: 0, failed: 1 });
  });

  it("answers a run timeout with 504 even when the handler never answers", async () => {
    const { fetch } = await h.open({ abortGraceMs: 200 }, { timeoutMs: 30 });
    h.graceFreed.add("stuck");
    const answer = await fetch("/hang", as("stuck"));
    expect(answer.status).toBe(504);
    expect(await answer.json()).toMatchObject({ error: { code: "RUN_TIMEOUT" } });
    await until(() => h.scheduler.metrics().running === 0, "the grace to free the slot");
  });

  it("holds a slot whose client left until the handler's work ends, or abortGraceMs has passed", async () => {
    const graceMs = 300;
    const { fetch } = await h.open({ abortGraceMs: graceMs });
    h.graceFreed.add("h");
    const client = new AbortController();
    const gone = fetch("/hang", { ...as("h"), signal: client.signal }).catch(() => undefined);
    await until(() => h.probe.ran.includes("h"), "h to run");
    client.abort();
    await gone;
    await until(() => h.scheduler.metrics().failed === 1, "the abort to be counted");
    const abortedAt = performance.now();
    expect(h.scheduler.metrics().running).toBe(1); // the handler may still be talking to the upstream
    await until(() => h.scheduler.metrics().running === 0, "the grace to free the slot");
    expect(performance.now() - abortedAt).toBeGreaterThanOrEqual(graceMs * 0.8);
  });

  it("counts a response whose body failed midway as failed, not completed", async () => {
    const { fetch } = await h.open({ abortGraceMs: 300 });
    // The body may fail before its headers even reach the client (Express destroys the connection).
    const answer = await fetch("/broken", as("b")).catch(() => undefined);
    if (answer !== undefined) {
      expect(answer.status).toBe(200);
      await answer.text().catch(() => undefined);
    }
    await until(() => h.scheduler.metrics().running === 0, "the slot to be released");
    expect(h.scheduler.metrics()).toMatchObject({ completed: 0, failed: 1 });
  });

  it("answers hostile x-priority headers (huge, repeated, non-ASCII) with a short 400 JSON", async () => {
    const { fetch } = await h.open();
    const attempts: Array<[string, HeadersInit]> = [
      ["huge", { "x-priority": "b".repeat(8_000) }],
      [
        "repeated",
        [
          ["x-priority", "batch"],
          ["x-priority", "interactive"],
        ],
      ],
      ["latin1", { "x-priority": "b\u00e4tch" }],
    ];
    for (const [id, headers] of attempts) {
      const refused = await fetch("/slot", {
        headers: new Headers([...new Headers(headers), ["x-request-id", id]]),
      });
      expect(refused.status).toBe(400);
      const text = await refused.text();
      expect(text.length).toBeLessThan(400);
      expect(JSON.parse(text)).toMatchObject({ error: { code: "INVALID_PRIORITY" } });
    }
    expect(h.probe.ran).toEqual([]);
  });

  it("numbers a request whose x-request-id is unusable, and ignores a nonsense retry count", async () => {
    const { fetch } = await h.open();
    for (const [requestId, retry] of [
      ["r".repeat(4_000), "1e999"],
      ["caf\u00e9", "-1"],
      ["a b", "NaN"],
    ] as const) {
      const answer = await fetch("/slot", {
        headers: { "x-request-id": requestId, "x-stainless-retry-count": retry },
      });
      expect(answer.status).toBe(200);
      const { id } = (await answer.json()) as { id: string };
      expect(id).not.toBe(requestId);
      expect(id.length).toBeLessThanOrEqual(128);
    }
    expect(h.probe.ran).toHaveLength(3);
  });

  it("never echoes a credential: a 930-character bearer token used as the tenant", async () => {
    const { fetch } = await h.open({}, { mapped: true });
    const token = `eyJ${"a1B2c3D4e5".repeat(92)}Z9`; // 930 characters, like an ordinary JWT
    const answer = await fetch(
      "/slot",
      as("jwt", { authorization: `Bearer ${token}`, "x-tenant": `Bearer ${token}` }),
    );
    // 400 while core refuses tenants this long, 200 once it hashes them: either way no echo.
    expect([200, 400]).toContain(answer.status);
    const text = await answer.text();
    const headers = [...answer.headers].join("\n");
    for (let start = 0; start + 16 <= token.length; start += 16) {
      if (answer.status !== 200) expect(text).not.toContain(token.slice(start, start + 16));
      expect(headers).not.toContain(token.slice(start, start + 16));
    }
  });
}
